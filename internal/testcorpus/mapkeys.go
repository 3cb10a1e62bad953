package testcorpus

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// GroupKeyMapRows is the number of rows of GroupKeyMaps' file.
const GroupKeyMapRows = 9

// GroupKeyMaps writes a Parquet file (arrow-go's writer, row groups of 3 rows) whose MAP
// columns have group keys, which the shared corpus lacks: "m" maps struct<a: int32, b:
// utf8?> keys (as Spark writes them) to utf8? values, "l" maps list<int32?> keys to int64.
// Both maps are nullable; the rows hold null maps, empty maps, null key fields, null list
// elements and null values, so every definition level occurs.
func GroupKeyMaps() ([]byte, error) {
	keyType := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "m", Type: arrow.MapOf(keyType, arrow.BinaryTypes.String), Nullable: true},
		{Name: "l", Type: arrow.MapOf(arrow.ListOf(arrow.PrimitiveTypes.Int32), arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	mb, lb := b.Field(1).(*array.MapBuilder), b.Field(2).(*array.MapBuilder)
	mk, mv := mb.KeyBuilder().(*array.StructBuilder), mb.ItemBuilder().(*array.StringBuilder)
	lk, lv := lb.KeyBuilder().(*array.ListBuilder), lb.ItemBuilder().(*array.Int64Builder)
	for i := 0; i < GroupKeyMapRows; i++ {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		switch i % 4 {
		case 1:
			mb.AppendNull()
			lb.AppendNull()
			continue
		case 2:
			mb.Append(true)
			lb.Append(true)
			continue
		}
		mb.Append(true)
		for e := 0; e <= i%3; e++ {
			mk.Append(true)
			mk.FieldBuilder(0).(*array.Int32Builder).Append(int32(10*i + e))
			if e == 1 {
				mk.FieldBuilder(1).(*array.StringBuilder).AppendNull()
				mv.AppendNull()
			} else {
				mk.FieldBuilder(1).(*array.StringBuilder).Append(string(rune('p' + e)))
				mv.Append(string(rune('v' + e)))
			}
		}
		lb.Append(true)
		for e := 0; e <= i%3; e++ {
			lk.Append(true)
			ek := lk.ValueBuilder().(*array.Int32Builder)
			for x := 0; x < e+1; x++ {
				if x == 1 {
					ek.AppendNull()
				} else {
					ek.Append(int32(i*100 + x))
				}
			}
			lv.Append(int64(-i * e))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(3)), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
