package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	pqvariant "github.com/pqscan/pqscan/internal/variant"
)

// A Delta table with the variantType and variantShredding features, whose files store the
// variant column three ways: the group Spark writes (value before metadata, no VARIANT
// annotation), a shredded group without the annotation, and an annotated shredded group as
// arrow-go writes it; a fourth file predates the column (nulls). Every row must read back as the value written, in the canonical
// unshredded form, natively and in the wasm module.

// variantDeltaFile writes rows' variants (nil: null) with ids from id0, laid out as the
// layout says, and returns the file's size and the expected values.
func variantDeltaFile(t *testing.T, path string, id0 int64, rows []any, layout string) (int, []*variant.Value) {
	t.Helper()
	var typed arrow.DataType
	if layout != "spark" {
		typed = arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	}
	vt := extensions.NewShreddedVariantType(typed)
	b := vt.NewBuilder(memory.DefaultAllocator).(*extensions.VariantBuilder)
	defer b.Release()
	for _, v := range rows {
		if v == nil {
			b.AppendNull()
			continue
		}
		var vb variant.Builder
		require.NoError(t, vb.Append(v))
		val, err := vb.Build()
		require.NoError(t, err)
		b.Append(val)
	}
	arr := b.NewArray().(*extensions.VariantArray)
	defer arr.Release()
	want := make([]*variant.Value, len(rows))
	for i := range rows {
		if !arr.IsNull(i) {
			v, err := arr.Value(i)
			require.NoError(t, err)
			want[i] = &v
		}
	}
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	defer ids.Release()
	for i := range rows {
		ids.Append(id0 + int64(i))
	}
	idArr := ids.NewArray()
	defer idArr.Release()
	var col arrow.Array = arr
	var ft arrow.DataType = vt
	switch layout {
	case "spark":
		// Spark's struct<value, metadata>, no annotation.
		st := arr.Storage().(*array.Struct)
		col = array.NewStructData(array.NewData(arrow.StructOf(
			arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary},
			arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary}),
			st.Len(), st.Data().Buffers(), []arrow.ArrayData{st.Field(1).Data(), st.Field(0).Data()}, st.NullN(), 0))
		defer col.Release()
		ft = col.DataType()
	case "plain-shredded":
		col, ft = arr.Storage(), arr.Storage().DataType()
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: ft, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{idArr, col}, int64(len(rows)))
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(50)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return buf.Len(), want
}

func Test_deltaVariant(t *testing.T) {
	g := newGenDelta(t)
	r := rand.New(rand.NewPCG(5, 9))
	var want []*variant.Value
	var adds []any
	for k, layout := range []string{"spark", "plain-shredded", "annotated"} {
		rows := make([]any, 120)
		for i := range rows {
			switch r.IntN(4) {
			case 0:
				rows[i] = randVariant(r, 0)
			case 1:
				rows[i] = map[string]any{"a": int64(i), "b": "x", "c": randVariant(r, 1)}
			case 2:
				rows[i] = map[string]any{"a": "not a number", "b": randVariant(r, 1)}
			default:
				if i%7 == 0 {
					rows[i] = nil
				} else {
					rows[i] = map[string]any{"a": int64(-i)}
				}
			}
		}
		name := fmt.Sprintf("part-%d.parquet", k)
		size, w := variantDeltaFile(t, filepath.Join(g.root, name), int64(len(want)), rows, layout)
		want = append(want, w...)
		adds = append(adds, map[string]any{"add": map[string]any{"path": name, "partitionValues": map[string]any{},
			"size": size, "modificationTime": 0, "dataChange": true, "stats": fmt.Sprintf(`{"numRecords":%d}`, len(rows))}})
	}
	// A file written before the variant column was added: its rows read the column as null.
	old := make([]map[string]any, 30)
	for i := range old {
		old[i] = map[string]any{"id": len(want) + i}
	}
	size := writeParquetRows(t, filepath.Join(g.root, "part-old.parquet"), arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil), old)
	want = append(want, make([]*variant.Value, len(old))...)
	adds = append(adds, map[string]any{"add": map[string]any{"path": "part-old.parquet", "partitionValues": map[string]any{},
		"size": size, "modificationTime": 0, "dataChange": true, "stats": fmt.Sprintf(`{"numRecords":%d}`, len(old))}})
	g.commit(0, append([]any{
		raw(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["variantType","variantShredding-preview"],"writerFeatures":["variantType","variantShredding-preview"]}}`),
		map[string]any{"metaData": map[string]any{"id": "v", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
			"schemaString":     `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"v","type":"variant","nullable":true,"metadata":{}}]}`,
			"partitionColumns": []string{}, "configuration": map[string]any{}, "createdTime": 0}},
	}, adds...)...)

	for _, e := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		t.Run(fmt.Sprintf("%T", e), func(t *testing.T) {
			ds, err := pqscan.OpenDataset(context.Background(), []string{g.root + "/"}, pqscan.Options{Engine: e})
			require.NoError(t, err)
			defer ds.Close()
			rd, err := ds.Scan(context.Background(), pqscan.ScanOptions{})
			require.NoError(t, err)
			defer rd.Close()
			seen := 0
			for {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				require.Equal(t, "arrow.parquet.variant", extName(rec.Schema().Field(1)))
				ids := rec.Column(0).(*array.Int64)
				for j := 0; j < int(rec.NumRows()); j++ {
					id := ids.Value(j)
					got, ok := variantAt(t, rec.Column(1), j)
					if want[id] == nil {
						require.True(t, !ok, "id", id, "should be null")
					} else {
						require.True(t, ok, "id", id, "is null")
						require.Equal(t, variantString(*want[id]), variantString(got), "id", id)
					}
					seen++
				}
				rec.Release()
			}
			require.Equal(t, len(want), seen)

			// As JSON text, through the table's top-k (its own batch writer) and a plain scan.
			for _, so := range []pqscan.ScanOptions{{VariantJSON: true, OrderBy: "id DESC", Limit: 70}, {VariantJSON: true, Where: "id >= 100"}} {
				rd, err := ds.Scan(context.Background(), so)
				require.NoError(t, err)
				n := 0
				for {
					rec, err := rd.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					require.Equal(t, "arrow.json", extName(rec.Schema().Field(1)))
					col := rec.Column(1)
					if ea, ok := col.(array.ExtensionArray); ok {
						col = ea.Storage()
					}
					js := col.(*array.String)
					ids := rec.Column(0).(*array.Int64)
					for j := 0; j < int(rec.NumRows()); j++ {
						id := ids.Value(j)
						if want[id] == nil {
							require.True(t, js.IsNull(j), "id", id)
							continue
						}
						w, err := pqvariant.AppendJSON(nil, want[id].Metadata().Bytes(), want[id].Bytes())
						require.NoError(t, err)
						require.Equal(t, string(w), js.Value(j), "id", id)
						n++
					}
					rec.Release()
				}
				rd.Close()
				require.True(t, n > 0, so)
			}
		})
	}
}
