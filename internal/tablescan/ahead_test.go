package tablescan

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan/internal/scan"
)

// smallFile is a Parquet file of rows [from, from+n): id and a 200-byte string.
func smallFile(t *testing.T, from, n int) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%0200d", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Test_filesAheadBounded: a table of many small files, each decoding to a batch far larger
// than the file, returns every row in order while the files after the head never hold more
// than the budget (a quarter of the memory cap) plus the one file that crossed it.
func Test_filesAheadBounded(t *testing.T) {
	const files, rows = 40, 1000
	var data [][]byte
	var fs []File
	for i := range files {
		b := smallFile(t, i*rows, rows)
		data = append(data, b)
		fs = append(fs, File{Path: fmt.Sprintf("f%02d.parquet", i), Size: int64(len(b))})
	}
	o := Options{Files: fs}
	o.MemoryCap = 4 << 20
	tab, err := New(o, scan.NewFooterCache(0))
	if err != nil {
		t.Fatal(err)
	}
	budget := o.maxActiveBytes() / 4
	var next int64
	var most, maxHeld int64
	for range 100_000 {
		st := tab.Next()
		ahead := tab.aheadBytes()
		most = max(most, ahead)
		for _, f := range tab.files {
			if f.held != nil {
				maxHeld = max(maxHeld, heldBytes(f))
			}
		}
		switch st.Kind {
		case scan.NeedData:
			for _, r := range st.Reqs {
				if err := tab.PushFile(r.File, r.Off, data[r.File][r.Off:r.Off+r.Len]); err != nil {
					t.Fatal(err)
				}
			}
		case scan.Batch:
			rd, err := ipc.NewReader(bytes.NewReader(st.IPC))
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				ids := rd.RecordBatch().Column(0).(*array.Int64)
				for k := range ids.Len() {
					if ids.Value(k) != next {
						t.Fatalf("row %d: id %d", next, ids.Value(k))
					}
					next++
				}
			}
			rd.Release()
		case scan.Done:
			if next != files*rows {
				t.Fatalf("%d rows, want %d", next, files*rows)
			}
			if maxHeld == 0 {
				t.Fatal("no file ever ran ahead of the head")
			}
			if most > budget+maxHeld {
				t.Fatalf("files ahead held %d bytes, budget %d (+ one file's %d)", most, budget, maxHeld)
			}
			if files*maxHeld <= 2*budget {
				t.Fatalf("the files are too small to test the bound: %d each", maxHeld)
			}
			return
		case scan.Error:
			t.Fatal(st.Err)
		}
	}
	t.Fatal("the scan did not finish")
}

// Test_allSkippedSchema: a session given no table schema whose predicate skips every file by
// its partition values reads the first file's footer for the schema and answers no rows, with
// and without an ORDER BY … LIMIT (whose files are otherwise visited by bound).
func Test_allSkippedSchema(t *testing.T) {
	a, b := smallFile(t, 0, 10), smallFile(t, 10, 10)
	data := [][]byte{a, b}
	fs := []File{{Path: "day=1/a.parquet", Size: int64(len(a))}, {Path: "day=2/b.parquet", Size: int64(len(b))}}
	for _, so := range []scan.Options{
		{Where: "day > 5", Metadata: true},
		{Where: "day > 5 AND id < 3", Metadata: true, OrderBy: "id", Limit: 2},
		{Where: "day > 5", Metadata: true, Count: true},
	} {
		tab, err := New(Options{Options: so, Files: fs}, scan.NewFooterCache(0))
		if err != nil {
			t.Fatal(err)
		}
		var meta bool
		for i := 0; ; i++ {
			if i > 1000 {
				t.Fatal("the scan did not finish")
			}
			st := tab.Next()
			if st.Kind == scan.Error {
				t.Fatal(so.Where, st.Err)
			}
			if st.Kind == scan.Metadata {
				meta = true
				if got := len(tab.Fields()); got != 3 { // id, s, day
					t.Fatalf("%s: %d table columns", so.Where, got)
				}
			}
			if st.Kind == scan.Batch && !so.Count {
				t.Fatalf("%s: a batch", so.Where)
			}
			if st.Kind == scan.NeedData {
				for _, r := range st.Reqs {
					if r.File != 0 {
						t.Fatalf("%s: a request of file %d", so.Where, r.File)
					}
					if err := tab.PushFile(r.File, r.Off, data[r.File][r.Off:r.Off+r.Len]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if st.Kind == scan.Done {
				break
			}
		}
		if !meta {
			t.Fatalf("%s: no Metadata step", so.Where)
		}
	}
}
