package pqscan_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
)

// writeSample writes a three-row Parquet file with arrow-go (any writer would do).
func writeSample() []byte {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"ann", "bob", ""}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func Example() {
	ctx := context.Background()
	data := writeSample()

	// A path or an http(s) URL works the same way: pqscan.Open(ctx, "data.parquet", ...).
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), pqscan.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println("rows:", f.Metadata().NumRows)

	r, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"name"}, Offset: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Schema().Field(0).Name, rec.Column(0))
		rec.Release()
	}
	fmt.Println("returned:", r.Report().RowsReturned)
	// Output:
	// rows: 3
	// name ["bob" (null)]
	// returned: 2
}
