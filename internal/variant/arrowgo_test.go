package variant_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// readVariantColumns reads a Parquet file with pqscan's public API and returns, per row, the
// rows of every column (as arrow-go arrays, one per record) plus the file's schema.
func readRecords(t *testing.T, data []byte) []arrow.RecordBatch {
	t.Helper()
	ctx := context.Background()
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), pqscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := f.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Release)
		recs = append(recs, rec)
	}
}

// toIPC converts an arrow-go array (of the types pqscan emits for VARIANT groups) to the
// engine's arrowipc model, sharing buffers.
func toIPC(t *testing.T, f arrow.Field, a arrow.Array) (arrowipc.Field, *arrowipc.Array) {
	t.Helper()
	d := a.Data()
	if d.Offset() != 0 {
		t.Fatalf("%s: sliced array", f.Name)
	}
	out := &arrowipc.Array{Len: a.Len(), NullCount: a.NullN()}
	if a.NullN() > 0 {
		out.Validity = a.NullBitmapBytes()
	}
	fl := arrowipc.Field{Name: f.Name, Nullable: f.Nullable}
	if md := f.Metadata; md.Len() > 0 {
		for i, k := range md.Keys() {
			fl.Metadata = append(fl.Metadata, [2]string{k, md.Values()[i]})
		}
	}
	fixed := func(w int) {
		if b := d.Buffers()[1]; b != nil {
			out.Data = b.Bytes()[:w*a.Len()]
		} else {
			out.Data = make([]byte, w*a.Len())
		}
	}
	switch tt := f.Type.(type) {
	case *arrow.BinaryType:
		fl.Type = arrowipc.DataType{ID: arrowipc.Binary}
		out.Offsets, out.Data = a.(*array.Binary).ValueOffsets(), a.(*array.Binary).ValueBytes()
	case *arrow.StringType:
		fl.Type = arrowipc.DataType{ID: arrowipc.Utf8}
		out.Offsets, out.Data = a.(*array.String).ValueOffsets(), a.(*array.String).ValueBytes()
	case *arrow.BooleanType:
		fl.Type = arrowipc.DataType{ID: arrowipc.Bool}
		fixed(0)
		if b := d.Buffers()[1]; b != nil {
			out.Data = b.Bytes()
		} else {
			out.Data = make([]byte, (a.Len()+7)/8)
		}
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		w := tt.(arrow.FixedWidthDataType).BitWidth()
		fl.Type = arrowipc.DataType{ID: arrowipc.Int, BitWidth: w, Signed: true}
		fixed(w / 8)
	case *arrow.Float32Type, *arrow.Float64Type:
		w := tt.(arrow.FixedWidthDataType).BitWidth()
		fl.Type = arrowipc.DataType{ID: arrowipc.Float, BitWidth: w}
		fixed(w / 8)
	case *arrow.Decimal128Type:
		fl.Type = arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: int(tt.Precision), Scale: int(tt.Scale)}
		fixed(16)
	case *arrow.Date32Type:
		fl.Type = arrowipc.DataType{ID: arrowipc.Date32}
		fixed(4)
	case *arrow.Time64Type:
		fl.Type = arrowipc.DataType{ID: arrowipc.Time, BitWidth: 64, Unit: arrowipc.TimeUnit(tt.Unit)}
		fixed(8)
	case *arrow.TimestampType:
		fl.Type = arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.TimeUnit(tt.Unit), TZ: tt.TimeZone}
		fixed(8)
	case *arrow.FixedSizeBinaryType:
		fl.Type = arrowipc.DataType{ID: arrowipc.FixedSizeBinary, ByteWidth: tt.ByteWidth}
		fixed(tt.ByteWidth)
	case arrow.ExtensionType:
		st := a.(array.ExtensionArray).Storage()
		fl2, arr := toIPC(t, arrow.Field{Name: f.Name, Type: tt.StorageType(), Nullable: f.Nullable}, st)
		fl2.Metadata = append(fl2.Metadata, [2]string{"ARROW:extension:name", tt.ExtensionName()})
		return fl2, arr
	case *arrow.StructType:
		fl.Type = arrowipc.DataType{ID: arrowipc.Struct}
		s := a.(*array.Struct)
		for i, cf := range tt.Fields() {
			cfl, ca := toIPC(t, cf, s.Field(i))
			fl.Type.Fields = append(fl.Type.Fields, cfl)
			out.Children = append(out.Children, ca)
		}
	case *arrow.ListType:
		l := a.(*array.List)
		ef, ea := toIPC(t, tt.ElemField(), l.ListValues())
		fl.Type = arrowipc.DataType{ID: arrowipc.List, Elem: &ef}
		out.Offsets, out.Children = l.Offsets(), []*arrowipc.Array{ea}
	default:
		t.Fatalf("%s: no conversion for %s", f.Name, f.Type)
	}
	return fl, out
}

// variantJSON unshreds the VARIANT column col of every record and renders each row ("" for null).
func variantJSON(t *testing.T, recs []arrow.RecordBatch, col string) []string {
	t.Helper()
	var out []string
	for _, rec := range recs {
		idx := rec.Schema().FieldIndices(col)
		if len(idx) != 1 {
			t.Fatalf("no column %q", col)
		}
		fl, a := toIPC(t, rec.Schema().Field(idx[0]), rec.Column(idx[0]))
		m, v, err := variantUnshred(fl.Type, a)
		if err != nil {
			t.Fatalf("Unshred: %v", err)
		}
		for i := 0; i < a.Len; i++ {
			if v.Validity != nil && v.Validity[i/8]&(1<<(i%8)) == 0 {
				out = append(out, "")
				continue
			}
			js, err := variantAppendJSON(nil, m.Data[m.Offsets[i]:m.Offsets[i+1]], v.Data[v.Offsets[i]:v.Offsets[i+1]])
			if err != nil {
				t.Fatalf("row %d: AppendJSON: %v", len(out), err)
			}
			out = append(out, string(js))
		}
	}
	return out
}
