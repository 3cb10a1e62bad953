// Package warmup makes the small Parquet file a browser engine scans in idle time after its
// start (jsbridge/src/warmup.js), so that V8 has compiled what a first query runs before
// one comes: V8 compiles a wasm function at its first call, on the calling thread, and a
// first query's ~1,200 functions cost it about as much as the query itself.
//
// The file is no data set's: it holds the physical types, logical types, encodings, codecs
// and shapes common writers produce (a timestamp and an int dictionary, a double, strings in
// a dictionary and plain, a date, a nullable int, a boolean, a list; ZSTD and SNAPPY; two row
// groups with statistics and a page index), so that one filtered scan and one full scan of
// it call the footer, index, filter, decoding and IPC code a first query calls, whatever its
// file. Its bytes are committed as jsbridge/src/warmup-file.js (go run ./internal/warmup/gen);
// a test keeps the two equal.
package warmup

import (
	"bytes"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Rows is the file's row count: enough for two row groups of several pages each, small
// enough that the warm-up's own work (not the compilation it triggers) is negligible.
const Rows = 256

// Where is the filter of the warm-up's first scan (the second reads every column whole).
const Where = "t >= TIMESTAMP '2026-01-01 00:02:00' AND k < 40 AND s <> 'gamma'"

// File returns the file's bytes (deterministic: the same bytes on every run).
func File() ([]byte, error) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "p", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	words := []string{"alpha", "beta", "gamma", "delta"}
	for i := range Rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(t0.Add(time.Duration(i) * time.Second).UnixMicro()))
		if i%7 == 3 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int32Builder).Append(int32(i % 50))
		}
		b.Field(3).(*array.Float64Builder).Append(float64(i%97) * 1.25)
		b.Field(4).(*array.StringBuilder).Append(words[i%len(words)])
		b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("p%d", i*7919%1000))
		b.Field(6).(*array.Date32Builder).Append(arrow.Date32(20454 + i/50))
		b.Field(7).(*array.BooleanBuilder).Append(i%3 == 0)
		lb := b.Field(8).(*array.ListBuilder)
		if i%5 == 4 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for j := range i % 3 {
				lb.ValueBuilder().(*array.Int64Builder).Append(int64(i + j))
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionFor("p", compress.Codecs.Snappy),
		parquet.WithCompressionFor("x", compress.Codecs.Snappy),
		parquet.WithDictionaryFor("id", false),
		parquet.WithDictionaryFor("p", false),
		parquet.WithMaxRowGroupLength(Rows/2),
		parquet.WithDataPageSize(256),
		parquet.WithBatchSize(32),
		parquet.WithPageIndexEnabled(true),
		parquet.WithStats(true),
		parquet.WithCreatedBy("pqscan warmup"),
	)
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
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
