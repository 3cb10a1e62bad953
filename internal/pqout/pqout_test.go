package pqout

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/require"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// batch makes n rows starting at id from (every third name null).
func batch(from, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		if i%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append("name" + string(rune('a'+i%26)))
		}
	}
	return b.NewRecordBatch()
}

// Test_Writer: batches stream into row groups cut by rows or by compressed bytes; the file
// is zstd-compressed with statistics, a page index and the stored Arrow schema, and reads
// back with arrow-go to the same rows.
func Test_Writer(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		batches   int
		rows      int64 // per batch; 0 means 1000
		rowGroups int
	}{
		{name: "defaults: one row group", batches: 3, rowGroups: 1},
		{name: "cut by rows", opts: Options{RowGroupRows: 2500}, batches: 3, rowGroups: 2},
		// Completed pages count (1 MiB each by default), so the batches are larger than a page.
		{name: "cut by bytes after each batch", opts: Options{RowGroupBytes: 1}, batches: 3, rows: 200_000, rowGroups: 3},
		{name: "empty result: a file with the schema", batches: 0, rowGroups: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.rows
			if n == 0 {
				n = 1000
			}
			var buf bytes.Buffer
			w, err := New(&buf, schema, tc.opts)
			require.NoError(t, err)
			for i := range tc.batches {
				rec := batch(int64(i)*n, n)
				require.NoError(t, w.Write(rec))
				rec.Release()
			}
			require.NoError(t, w.Close())

			rdr, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
			require.NoError(t, err)
			defer rdr.Close()
			md := rdr.MetaData()
			require.Equal(t, tc.rowGroups, md.NumRowGroups())
			require.Equal(t, int64(tc.batches)*n, md.NumRows)
			require.Equal(t, "pqscan cat", md.GetCreatedBy())
			require.True(t, md.KeyValueMetadata().FindValue("ARROW:schema") != nil)
			for g := range md.NumRowGroups() {
				for c := range 2 {
					cc, err := md.RowGroup(g).ColumnChunk(c)
					require.NoError(t, err)
					require.Equal(t, compress.Codecs.Zstd, cc.Compression())
					st, err := cc.StatsSet()
					require.NoError(t, err)
					require.True(t, st, "statistics of row group", g, "column", c)
					require.True(t, cc.GetColumnIndexLocation() != nil && cc.GetOffsetIndexLocation() != nil, "page index of row group", g)
				}
			}
			fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			require.NoError(t, err)
			tbl, err := fr.ReadTable(context.Background())
			require.NoError(t, err)
			defer tbl.Release()
			require.Equal(t, int64(tc.batches)*n, tbl.NumRows())
			if tc.batches > 0 {
				want := batch(0, int64(tc.batches)*n)
				defer want.Release()
				got := array.NewTableReader(tbl, -1)
				defer got.Release()
				require.True(t, got.Next())
				require.True(t, array.RecordEqual(want, got.RecordBatch()))
			}
		})
	}
}

// Test_unwritableType: a type the Parquet writer has no mapping for is ErrType from New.
func Test_unwritableType(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.DenseUnionOf(
		[]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, []arrow.UnionTypeCode{0})}}, nil)
	_, err := New(&bytes.Buffer{}, s, Options{})
	require.ErrorIs(t, err, ErrType)
}
