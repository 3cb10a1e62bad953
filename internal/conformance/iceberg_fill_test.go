package conformance

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_icebergIdentityFill: a data file written without the source column of an identity
// partition field reads the file's partition value in that column (spec § Column
// Projection), and a filter on the column keeps the file's row rather than reading it as
// null. The corpus table is partitioned by identity(c1), identity(c2); its file of
// c1=2 is rewritten without c1 (c2 and c3 keep their field ids), so the table reads the
// same rows as before, natively and with the module as the engine.
func Test_icebergIdentityFill(t *testing.T) {
	const data = "data/c1=2/c2=2025-03-03/20250307_214706_00010_sdejt-61343ed1-8a19-4193-9ca5-2f0bee74ef33.parquet"
	ctx := context.Background()
	root := copyIcebergTable(t, "lithium__partitioning_with_null_value")
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	want := datasetRows(t, ds)
	ds.Close()
	require.Equal(t, 4, len(want))

	n := rewriteWithoutColumn(t, filepath.Join(root, data), "c1")
	setManifestFileSize(t, root, filepath.Base(data), n)

	rowsWith := func(part string) []string {
		var out []string
		for _, r := range want {
			if strings.Contains(r, part) {
				out = append(out, r)
			}
		}
		return out
	}
	require.Equal(t, 1, len(rowsWith(`"c1":"2",`)))
	require.Equal(t, 2, len(rowsWith(`"c1":null`)))
	for _, eng := range []struct {
		name string
		o    pqscan.Options
	}{{name: "native"}, {name: "wasm", o: pqscan.Options{Engine: wasmHost(t)}}} {
		t.Run(eng.name, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				where string
				want  []string
			}{
				{name: "every row", want: want},
				{name: "equal to the partition value", where: "c1 = 2", want: rowsWith(`"c1":"2",`)},
				{name: "another value", where: "c1 > 2", want: nil},
				{name: "null", where: "c1 IS NULL", want: rowsWith(`"c1":null`)},
				{name: "not equal", where: "NOT (c1 <> 2) AND c3 < 0", want: rowsWith(`"c1":"2",`)},
			} {
				ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, eng.o)
				require.NoError(t, err, tc.name)
				got := datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: tc.where})
				ds.Close()
				require.Equal(t, tc.want, got, tc.name)
			}
			// Ordered by the filled column: the file without it sorts by its partition value.
			ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, eng.o)
			require.NoError(t, err)
			got := orderedRows(t, ds, pqscan.ScanOptions{OrderBy: "c1 DESC NULLS LAST", Limit: 1})
			ds.Close()
			require.Equal(t, rowsWith(`"c1":"2",`), got)
		})
	}
}

// rewriteWithoutColumn writes the Parquet file at p again without its column drop (the
// others keep their field ids) and returns its size.
func rewriteWithoutColumn(t *testing.T, p, drop string) int64 {
	t.Helper()
	tbl := readParquetTable(t, p)
	defer tbl.Release()
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range tbl.Schema().Fields() {
		if f.Name == drop {
			continue
		}
		_, ok := f.Metadata.GetValue("PARQUET:field_id")
		require.True(t, ok, f.Name)
		require.Equal(t, 1, len(tbl.Column(i).Data().Chunks()))
		fields = append(fields, f)
		cols = append(cols, tbl.Column(i).Data().Chunk(0))
	}
	require.Equal(t, len(tbl.Schema().Fields())-1, len(fields))
	return writeParquetFile(t, p, arrow.NewSchema(fields, nil), cols, tbl.NumRows())
}
