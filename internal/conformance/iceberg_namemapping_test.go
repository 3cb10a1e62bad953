package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_icebergNameMapping: a data file without field ids (a table migrated to Iceberg) reads
// by the table's name mapping (schema.name-mapping.default). The corpus table's one data
// file is rewritten without ids, its columns c1 and c3 under older names the mapping lists,
// and a decoy column named c3 the mapping does not: the table reads its rows unchanged,
// natively and with the module as the engine.
func Test_icebergNameMapping(t *testing.T) {
	const (
		meta = "metadata/00002-f7dd062a-ad44-4948-ba0c-4cd9f585ba04.metadata.json"
		data = "data/20250310_161728_00004_i9wr4-40df733f-a909-4d83-8516-ac48ad8965c0.parquet"
	)
	ctx := context.Background()
	root := copyIcebergTable(t, "lithium__no_partitioning")
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	want := datasetRows(t, ds)
	ds.Close()
	require.Equal(t, 6, len(want))

	n := rewriteWithoutIDs(t, filepath.Join(root, data))
	setManifestFileSize(t, root, "", n)
	mapping := `[{"field-id":1,"names":["c1","old_c1"]},{"field-id":2,"names":["c2"]},{"field-id":3,"names":["legacy_c3"]}]`
	b, err := os.ReadFile(filepath.Join(root, meta))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	props := m["properties"].(map[string]any)

	for _, eng := range []struct {
		name string
		o    pqscan.Options
	}{{name: "native"}, {name: "wasm", o: pqscan.Options{Engine: wasmHost(t)}}} {
		t.Run(eng.name, func(t *testing.T) {
			for _, tc := range []struct {
				name    string
				mapping string // "": no property
				same    bool
			}{
				{name: "by the name mapping", mapping: mapping, same: true},
				{name: "by name without one", same: false},
			} {
				delete(props, "schema.name-mapping.default")
				if tc.mapping != "" {
					props["schema.name-mapping.default"] = tc.mapping
				}
				b, err := json.Marshal(m)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(root, meta), b, 0o644))
				ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, eng.o)
				require.NoError(t, err, tc.name)
				got := datasetRows(t, ds)
				ds.Close()
				require.Equal(t, tc.same, slices.Equal(want, got), tc.name, got)
			}
		})
	}
}

// rewriteWithoutIDs writes the Parquet file at p again without field ids, with c1 named
// old_c1, c3 named legacy_c3 and a decoy c3 (c3 negated) after it, and returns its size.
func rewriteWithoutIDs(t *testing.T, p string) int64 {
	t.Helper()
	tbl := readParquetTable(t, p)
	defer tbl.Release()
	col := func(i int) arrow.Array {
		require.Equal(t, 1, len(tbl.Column(i).Data().Chunks()))
		return tbl.Column(i).Data().Chunk(0)
	}
	c3 := col(2).(*array.Float64)
	nb := array.NewFloat64Builder(memory.DefaultAllocator)
	for i := 0; i < c3.Len(); i++ {
		if c3.IsNull(i) {
			nb.AppendNull()
		} else {
			nb.Append(-c3.Value(i) - 1)
		}
	}
	decoy := nb.NewArray()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "old_c1", Type: col(0).DataType(), Nullable: true},
		{Name: "c2", Type: col(1).DataType(), Nullable: true},
		{Name: "legacy_c3", Type: c3.DataType(), Nullable: true},
		{Name: "c3", Type: c3.DataType(), Nullable: true},
	}, nil)
	return writeParquetFile(t, p, schema, []arrow.Array{col(0), col(1), c3, decoy}, int64(c3.Len()))
}

// readParquetTable reads the Parquet file at p with arrow-go (field ids in the fields'
// PARQUET:field_id metadata).
func readParquetTable(t *testing.T, p string) arrow.Table {
	t.Helper()
	r, err := file.OpenParquetFile(p, false)
	require.NoError(t, err)
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	return tbl
}

// writeParquetFile writes the columns cols of schema (n rows) to the Parquet file at p and
// returns its size.
func writeParquetFile(t *testing.T, p string, schema *arrow.Schema, cols []arrow.Array, n int64) int64 {
	t.Helper()
	rec := array.NewRecordBatch(schema, cols, n)
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, nil, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return int64(buf.Len())
}

// setManifestFileSize sets, in every manifest of the table at root, the size of the data
// file named base ("": every data file) to n.
func setManifestFileSize(t *testing.T, root, base string, n int64) {
	t.Helper()
	manifests, err := filepath.Glob(filepath.Join(root, "metadata", "*-m*.avro"))
	require.NoError(t, err)
	for _, p := range manifests {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, rewriteAvroValues(t, b, func(v any) any { return setFileSize(v, base, n) }), 0o644))
	}
}

// setFileSize is a manifest entry (as avro.Decode gives it) with the size of its data file
// set to n when the file is named base ("": any).
func setFileSize(v any, base string, n int64) any {
	if e, ok := v.(map[string]any); ok {
		if df, ok := e["data_file"].(map[string]any); ok {
			if p, _ := df["file_path"].(string); base == "" || strings.HasSuffix(p, "/"+base) {
				df["file_size_in_bytes"] = n
			}
		}
	}
	return v
}
