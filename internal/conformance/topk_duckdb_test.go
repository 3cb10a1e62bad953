package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// topkCases are sorted scans of corpus files: nulls, NaN, pages, row groups, strings,
// ties (broken by position), offsets, several keys, sorts without a limit.
var topkCases = []struct {
	file, where, orderBy string
	limit, offset        int64
}{
	{"hyparquet/page_index.parquet", "", "id DESC", 10, 0},
	{"hyparquet/page_index.parquet", "id < 2000", "word DESC", 7, 3},
	{"hyparquet/page_index.parquet", "", "word", 0, 0},
	{"parquet-testing/data/int32_with_null_pages.parquet", "", "int32_field DESC", 20, 0},
	{"parquet-testing/data/int32_with_null_pages.parquet", "", "int32_field NULLS FIRST", 20, 0},
	{"parquet-testing/data/int32_with_null_pages.parquet", "int32_field > 0", "int32_field ASC", 15, 5},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "", "bigint_col DESC, id", 25, 0},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "bool_col = true", "float_col, id DESC", 30, 0},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "", "string_col DESC", 0, 100},
	{"parquet-testing/data/floating_orders_nan_count.parquet", "", "double_ieee754 DESC", 5, 0},
	{"parquet-testing/data/floating_orders_nan_count.parquet", "", "float_typedef DESC NULLS FIRST, double_typedef", 8, 0},
	{"parquet-testing/data/nan_in_stats.parquet", "", "x DESC", 3, 0},
	{"parquet-testing/data/nan_in_stats.parquet", "", "x", 3, 0},
	{"hyparquet/rowgroups.parquet", "", "numbers DESC", 4, 0},
	{"hyparquet/dictionary_offset_indexed.parquet", "", "country DESC", 10, 0},
}

// topkEventsFile writes a generated events file (random order, page index, 64K-row row groups)
// into a temporary folder: a sorted scan over it has whole row groups and pages that the running
// bound skips, which the small corpus files alone do not show.
func topkEventsFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "events.parquet")
	f, err := os.Create(p)
	require.NoError(t, err)
	defer f.Close() // the writer closes f itself; this covers a failure before it does
	require.NoError(t, events.Generate(f, events.Config{Rows: 300_000, Layout: events.Unsorted, RowGroupRows: 1 << 16, Seed: 3}))
	return p
}

// Test_topkDuckDB: a sorted scan returns the rows of DuckDB's ORDER BY ... LIMIT ... OFFSET
// on the same file, ties broken by position (file_row_number), natively
// (wazerohost/topk_test.go: the same through the module). Positions are compared through the row index.
func Test_topkDuckDB(t *testing.T) {
	root := testcorpus.Dir(t)
	node := testcorpus.DuckNode(t)
	type tc struct {
		path, where, orderBy string
		limit, offset        int64
	}
	var cases []tc
	for _, c := range topkCases {
		cases = append(cases, tc{filepath.Join(root, c.file), c.where, c.orderBy, c.limit, c.offset})
	}
	ev := topkEventsFile(t)
	cases = append(cases, tc{ev, "", "value DESC", 10, 0}, tc{ev, "tenant_id < 1500", "value", 10, 0})
	var sqls []string
	for _, c := range cases {
		q := fmt.Sprintf("SELECT file_row_number FROM read_parquet('%s', file_row_number=true)", c.path)
		if c.where != "" {
			q += " WHERE " + c.where
		}
		q += " ORDER BY " + c.orderBy + ", file_row_number"
		if c.limit > 0 {
			q += " LIMIT " + strconv.FormatInt(c.limit, 10)
		}
		q += " OFFSET " + strconv.FormatInt(c.offset, 10)
		sqls = append(sqls, q)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, append([]string{testcorpus.DuckScript("query.mjs")}, sqls...)...).Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	var rows, skipped int
	for i, c := range cases {
		require.True(t, sc.Scan(), "DuckDB gave fewer answers than cases")
		var res [][]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &res), sqls[i])
		var want []int64
		for _, r := range res {
			n, err := strconv.ParseInt(fmt.Sprint(r[0]), 10, 64)
			require.NoError(t, err)
			want = append(want, n)
		}
		{
			f, err := pqscan.Open(context.Background(), c.path, pqscan.Options{TailSize: 1024}) // a small tail: data bytes come in rounds
			require.NoError(t, err)
			r, err := f.Scan(context.Background(), pqscan.ScanOptions{Where: c.where, OrderBy: c.orderBy, Limit: c.limit, Offset: c.offset,
				RowIndex: "__pos", Columns: []string{"__pos"}, BatchRows: 7})
			require.NoError(t, err)
			var got []int64
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err, sqls[i])
				got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
				rec.Release()
			}
			skipped += r.Report().TopKSkipped
			r.Close()
			f.Close()
			require.Equal(t, want, got, sqls[i])
			rows += len(got)
		}
	}
	t.Logf("%d sorted scans equal DuckDB's, %d rows, %d units skipped by the bound", len(cases), rows, skipped)
	require.True(t, rows > 1000 && skipped > 50, "too few meaningful cases", rows, skipped)
}
