package optimize

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

// genEvents writes n rows of (tenant_id, user_id, event_time, event_type, value) in random
// order, 8,192-row row groups, no page index, snappy.
func genEvents(t testing.TB, n int) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "tenant_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "event_type", Type: arrow.BinaryTypes.String},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"click", "view", "buy", "login"}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range n {
		tenant := int64(r.IntN(50))
		b.Field(0).(*array.Int64Builder).Append(tenant)
		if i%97 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(tenant<<20 | int64(r.IntN(n/5)))
		}
		// Few distinct times per tenant so that ties exercise stability.
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1_790_000_000_000_000 + int64(r.IntN(3000))*1_000_000))
		b.Field(3).(*array.StringBuilder).Append(types[r.IntN(len(types))])
		b.Field(4).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(8192), parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, fw.Write(rec))
	require.NoError(t, fw.Close())
	return buf.Bytes()
}

func openBytes(t testing.TB, b []byte) *pqscan.File {
	t.Helper()
	f, err := pqscan.OpenReaderAt(context.Background(), bytes.NewReader(b), int64(len(b)), pqscan.Options{})
	require.NoError(t, err)
	return f
}

// rowStrings renders every row of a batch as JSON-ish text, one string per row.
func appendRows(rows []string, rec arrow.RecordBatch) []string {
	var buf []byte
	for i := range int(rec.NumRows()) {
		buf = buf[:0]
		for c, f := range rec.Schema().Fields() {
			if c > 0 {
				buf = append(buf, ',')
			}
			buf = rowfmt.AppendJSON(buf, f, rec.Column(c), i)
		}
		rows = append(rows, string(buf))
	}
	return rows
}

// pqscanRows reads every row of b with pqscan.
func pqscanRows(t testing.TB, b []byte) []string {
	t.Helper()
	f := openBytes(t, b)
	r, err := f.Scan(context.Background(), pqscan.ScanOptions{})
	require.NoError(t, err)
	defer r.Close()
	var rows []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		require.NoError(t, err)
		rows = appendRows(rows, rec)
		rec.Release()
	}
}

// arrowRows reads every row of b with arrow-go's pqarrow reader.
func arrowRows(t testing.TB, b []byte) []string {
	t.Helper()
	var rows []string
	arrowRecords(t, b, func(rec arrow.RecordBatch) { rows = appendRows(rows, rec) })
	return rows
}

// arrowRecords passes every record batch of b, read by arrow-go's pqarrow reader, to fn.
func arrowRecords(t testing.TB, b []byte, fn func(arrow.RecordBatch)) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	require.NoError(t, err)
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	require.NoError(t, err)
	defer rr.Release()
	for rr.Next() {
		fn(rr.RecordBatch())
	}
	require.True(t, rr.Err() == nil || errors.Is(rr.Err(), io.EOF), rr.Err())
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// footer decodes the FileMetaData of a Parquet file.
func footer(t testing.TB, b []byte) *format.FileMetaData {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	md, err := format.DecodeFileMetaData(b[len(b)-8-n : len(b)-8])
	require.NoError(t, err)
	return md
}

// leafIndex returns the leaf index of a top-level column of a flat schema.
func leafIndex(md *format.FileMetaData, name string) int {
	for i, rg := range md.RowGroups[:1] {
		_ = i
		for c, cc := range rg.Columns {
			if cc.MetaData != nil && strings.Join(cc.MetaData.PathInSchema, ".") == name {
				return c
			}
		}
	}
	return -1
}
