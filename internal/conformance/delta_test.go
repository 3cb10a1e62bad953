package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// canonRows renders the rows of rec as one string each: columns sorted by name, every value in
// a type-neutral form (timestamps as UTC instants, decimals as text), so that the expected
// tables arrow-go reads and the rows pqscan returns compare value by value.
func canonRows(rec arrow.RecordBatch) []string { return canonRowsWith(rec, nil) }

// canonRowsWith is canonRows with extra constant columns (name=value, already canonical).
func canonRowsWith(rec arrow.RecordBatch, extra []string) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		parts := append([]string(nil), extra...)
		for c := 0; c < int(rec.NumCols()); c++ {
			parts = append(parts, rec.ColumnName(c)+"="+canonValue(rec.Column(c), r))
		}
		sort.Strings(parts)
		out[r] = strings.Join(parts, "|")
	}
	return out
}

func canonValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case *array.Timestamp:
		u := x.DataType().(*arrow.TimestampType).Unit
		return x.Value(i).ToTime(u).UTC().Format(time.RFC3339Nano)
	case *array.Date32:
		return x.Value(i).ToTime().Format("2006-01-02")
	case *array.Float32:
		return strconv.FormatFloat(float64(x.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(x.Value(i), 'g', -1, 64)
	case *array.Binary:
		return fmt.Sprintf("%x", x.Value(i))
	}
	b, _ := json.Marshal(a.GetOneForMarshal(i))
	return string(b)
}

// oracleTable reads a Parquet file with arrow-go.
func oracleTable(t *testing.T, p string) []string { return oracleTableWith(t, p, nil) }

func oracleTableWith(t *testing.T, p string, extra []string) []string {
	t.Helper()
	rdr, err := file.OpenParquetFile(p, false)
	require.NoError(t, err)
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	var out []string
	for tr.Next() {
		out = append(out, canonRowsWith(tr.RecordBatch(), extra)...)
	}
	return out
}

// deltaRows reads the Delta table at dir (version nil: latest) with pqscan.
func deltaRows(t *testing.T, dir string, version *int64, so pqscan.ScanOptions) ([]string, *pqscan.Reader, error) {
	t.Helper()
	return deltaRowsWith(t, dir, pqscan.Options{DeltaVersion: version}, so)
}

// deltaRowsWith is deltaRows with the dataset's options (an engine, a version).
func deltaRowsWith(t *testing.T, dir string, o pqscan.Options, so pqscan.ScanOptions) ([]string, *pqscan.Reader, error) {
	t.Helper()
	ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, o)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { ds.Close() })
	r, err := ds.Scan(context.Background(), so)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r, nil
		}
		if err != nil {
			return nil, r, err
		}
		out = append(out, canonRows(rec)...)
		rec.Release()
	}
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	got, want = append([]string(nil), got...), append([]string(nil), want...)
	sort.Strings(got)
	sort.Strings(want)
	require.Equal(t, len(want), len(got), "%s: rows", what)
	for i := range want {
		require.Equal(t, want[i], got[i], "%s: row %d", what, i)
	}
}

// Test_deltaDAT reads every DAT reader case at every version it ships and compares with its
// expected table contents (row order not significant, as DAT says).
func Test_deltaDAT(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "dat")
	cases, err := os.ReadDir(root)
	require.NoError(t, err)
	n := 0
	for _, c := range cases {
		exp, err := os.ReadDir(filepath.Join(root, c.Name(), "expected"))
		require.NoError(t, err)
		for _, v := range exp {
			var version *int64
			if v.Name() != "latest" {
				n, err := strconv.ParseInt(strings.TrimPrefix(v.Name(), "v"), 10, 64)
				require.NoError(t, err)
				version = &n
			}
			want := oracleTable(t, filepath.Join(root, c.Name(), "expected", v.Name(), "table_content.parquet"))
			got, _, err := deltaRows(t, filepath.Join(root, c.Name(), "delta"), version, pqscan.ScanOptions{})
			require.NoError(t, err, "%s %s", c.Name(), v.Name())
			sameRows(t, c.Name()+" "+v.Name(), got, want)
			n++
		}
	}
	require.Equal(t, 12, n, "DAT case versions") // 3 + 3 + 4 + 2
}
