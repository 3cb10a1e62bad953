package optimize

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// checkLayout asserts the footer facts every Rewrite output has: page index on every chunk,
// bloom filters exactly on bloom, sorting columns sortBy.
func checkLayout(t *testing.T, out []byte, bloom, sortBy []string) {
	t.Helper()
	md := footer(t, out)
	require.True(t, md.CreatedBy != nil && *md.CreatedBy == "pqscan optimize (test)", md.CreatedBy)
	var want []format.SortingColumn
	for _, s := range sortBy {
		want = append(want, format.SortingColumn{ColumnIdx: int32(leafIndex(md, s))})
	}
	for i, rg := range md.RowGroups {
		require.Equal(t, len(want), len(rg.SortingColumns), "row group", i)
		for k := range want {
			require.Equal(t, want[k], rg.SortingColumns[k], "row group", i)
		}
		for _, cc := range rg.Columns {
			path := cc.MetaData.PathInSchema
			require.True(t, cc.OffsetIndexOffset != nil && cc.OffsetIndexLength != nil, "offset index", path)
			require.True(t, cc.ColumnIndexOffset != nil && cc.ColumnIndexLength != nil, "column index", path)
			hasBloom := cc.MetaData.BloomFilterOffset != nil
			require.Equal(t, len(path) == 1 && slices.Contains(bloom, path[0]), hasBloom, "bloom", path)
		}
	}
}

func Test_RewriteGenerated(t *testing.T) {
	in := genEvents(t, 50_000)
	inRows := pqscanRows(t, in)
	tests := []struct {
		name      string
		opts      Options
		bloom     []string
		wantSpill bool
	}{
		{name: "sort in memory, bloom user_id", opts: Options{SortBy: []string{"tenant_id", "event_time"}, Bloom: []BloomSpec{{Column: "user_id"}}, RowGroupRows: 10_000}, bloom: []string{"user_id"}},
		{name: "external sort with a tiny cap", opts: Options{SortBy: []string{"tenant_id", "event_time"}, MemoryCap: 64 << 10, RowGroupRows: 10_000, Codec: "gzip", Level: 1}, wantSpill: true},
		{name: "no sort, bloom auto, byte-sized row groups", opts: Options{BloomAuto: true, RowGroupBytes: 200 << 10, PageRows: 1000, Codec: "lz4raw"}, bloom: []string{"user_id"}},
		{name: "string key descending input, bloom explicit ndv", opts: Options{SortBy: []string{"event_type", "value"}, Bloom: []BloomSpec{{Column: "event_type", NDV: 10, FPP: 0.05}}, Codec: "none"}, bloom: []string{"event_type"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Version, tc.opts.TempDir = "test", t.TempDir()
			var out bytes.Buffer
			res, err := Rewrite(context.Background(), openBytes(t, in), &out, tc.opts)
			require.NoError(t, err)
			require.Equal(t, int64(50_000), res.Rows)
			require.Equal(t, tc.wantSpill, res.SortedRuns > 1, "runs", res.SortedRuns)
			left, _ := os.ReadDir(tc.opts.TempDir)
			require.Equal(t, 0, len(left), "run files left behind")

			got := pqscanRows(t, out.Bytes())
			require.Equal(t, sortedCopy(inRows), sortedCopy(got), "pqscan rows as a multiset")
			require.Equal(t, got, arrowRows(t, out.Bytes()), "arrow-go rows, in order")
			if len(tc.opts.SortBy) > 0 {
				require.Equal(t, stableSorted(t, inRows, tc.opts.SortBy), got, "sorted, stable")
			}
			checkLayout(t, out.Bytes(), tc.bloom, tc.opts.SortBy)
			md := footer(t, out.Bytes())
			if tc.opts.PageRows > 0 {
				for _, rg := range md.RowGroups {
					for _, cc := range rg.Columns {
						oi, err := format.DecodeOffsetIndex(out.Bytes()[*cc.OffsetIndexOffset : *cc.OffsetIndexOffset+int64(*cc.OffsetIndexLength)])
						require.NoError(t, err)
						for i, p := range oi.PageLocations {
							require.Equal(t, int64(i)*tc.opts.PageRows, p.FirstRowIndex, cc.MetaData.PathInSchema, i)
						}
					}
				}
			}
			switch {
			case tc.opts.RowGroupRows > 0:
				require.Equal(t, 5, len(md.RowGroups))
			case tc.opts.RowGroupBytes > 0:
				require.True(t, len(md.RowGroups) > 1, "row groups", len(md.RowGroups))
				for _, rg := range md.RowGroups[:len(md.RowGroups)-1] {
					// Data pages reach the limit; dictionaries come on top (see rowGroupWriter).
					require.True(t, *rg.TotalCompressedSize >= 200<<10, "row group bytes", *rg.TotalCompressedSize)
				}
			}
		})
	}
}

// stableSorted sorts rendered rows (JSON arrays of the generated schema) by the named
// columns with a stable sort, as Rewrite must.
func stableSorted(t *testing.T, rows []string, by []string) []string {
	t.Helper()
	col := map[string]int{"tenant_id": 0, "user_id": 1, "event_time": 2, "event_type": 3, "value": 4}
	type row struct {
		s string
		v []any
	}
	rs := make([]row, len(rows))
	for i, s := range rows {
		var v []any
		require.NoError(t, json.Unmarshal([]byte("["+s+"]"), &v))
		rs[i] = row{s, v}
	}
	slices.SortStableFunc(rs, func(a, b row) int {
		for _, name := range by {
			x, y := a.v[col[name]], b.v[col[name]]
			var c int
			switch x := x.(type) {
			case float64:
				c = cmp.Compare(x, y.(float64))
			case string:
				c = cmp.Compare(x, y.(string))
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.s
	}
	return out
}

func Test_RewriteCorpus(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		sortBy []string
	}{
		{name: "alltypes plain", file: "alltypes_plain.parquet", sortBy: []string{"string_col", "id"}},
		{name: "tiny pages", file: "alltypes_tiny_pages.parquet", sortBy: []string{"int_col"}},
		{name: "bloom and encoding stats", file: "data_index_bloom_encoding_stats.parquet"},
		{name: "nested structs", file: "nested_structs.rust.parquet"},
		{name: "lists", file: "list_columns.parquet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := testcorpus.Read(t, filepath.Join("parquet-testing", "data", tc.file))
			var out bytes.Buffer
			_, err := Rewrite(context.Background(), openBytes(t, in), &out, Options{SortBy: tc.sortBy, Version: "test", TempDir: t.TempDir()})
			require.NoError(t, err)
			inRows, got := pqscanRows(t, in), pqscanRows(t, out.Bytes())
			require.Equal(t, sortedCopy(inRows), sortedCopy(got))
			require.Equal(t, got, arrowRows(t, out.Bytes()))
			checkLayout(t, out.Bytes(), nil, tc.sortBy)
		})
	}
}
