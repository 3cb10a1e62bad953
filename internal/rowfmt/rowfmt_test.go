package rowfmt

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/require"
)

// sample is a three-row batch with a string, an int64, a list and a struct column.
func sample(t *testing.T) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "p", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"ann", "a \"quoted\", long name that goes on and on", ""}, []bool{true, true, false})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, -9007199254740993, 0}, []bool{true, true, false})
	lb := b.Field(2).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	lb.Append(true)
	lb.AppendNull()
	sb := b.Field(3).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Float64Builder).Append(0.5)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Float64Builder).AppendNull()
	sb.AppendNull()
	return b.NewRecordBatch()
}

func Test_Writers(t *testing.T) {
	tests := []struct {
		name   string
		format string
		opts   Options
		want   string
	}{
		{name: "jsonl", format: "jsonl", want: `{"name":"ann","n":1,"tags":["a","b"],"p":{"x":0.5}}
{"name":"a \"quoted\", long name that goes on and on","n":-9007199254740993,"tags":[],"p":{"x":null}}
{"name":null,"n":null,"tags":null,"p":null}
`},
		{name: "csv", format: "csv", want: `name,n,tags,p
ann,1,"[""a"",""b""]","{""x"":0.5}"
"a ""quoted"", long name that goes on and on",-9007199254740993,[],"{""x"":null}"
,,,
`},
		{name: "table truncates", format: "table", opts: Options{MaxCellWidth: 12}, want: `name          n             tags       p
------------  ------------  ---------  ----------
ann           1             ["a","b"]  {"x":0.5}
a "quoted",…  -9007199254…  []         {"x":null}
null          null          null       null
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := sample(t)
			defer rec.Release()
			var out bytes.Buffer
			w, err := New(tc.format, &out, rec.Schema(), tc.opts)
			require.NoError(t, err)
			require.NoError(t, w.Write(rec))
			require.NoError(t, w.Close())
			require.Equal(t, tc.want, out.String())
		})
	}
}

// Test_TableBlocks checks that widths are fixed by the first block and that later blocks are
// cut to them rather than misaligned.
func Test_TableBlocks(t *testing.T) {
	rec := sample(t)
	defer rec.Release()
	var out bytes.Buffer
	w, err := New("table", &out, rec.Schema(), Options{BlockRows: 1, MaxCellWidth: 100})
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.Equal(t, `name  n  tags       p
----  -  ---------  ---------
ann   1  ["a","b"]  {"x":0.5}
a "…  …  []         {"x":nul…
null  …  null       null
`, out.String())
}

func Test_ArrowRoundTrip(t *testing.T) {
	rec := sample(t)
	defer rec.Release()
	var out bytes.Buffer
	w, err := New("arrow", &out, rec.Schema(), Options{})
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())

	r, err := ipc.NewReader(&out)
	require.NoError(t, err)
	defer r.Release()
	n := 0
	for r.Next() {
		require.True(t, array.RecordEqual(rec, r.RecordBatch()), "batch", n)
		n++
	}
	require.NoError(t, r.Err())
	require.Equal(t, 2, n)
}

func Test_EmptyOutputs(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
	tests := []struct {
		name, format, want string
	}{
		{name: "jsonl prints nothing", format: "jsonl", want: ""},
		{name: "csv prints the header", format: "csv", want: "a\n"},
		{name: "table prints the header", format: "table", want: "a\n-\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := New(tc.format, &out, schema, Options{})
			require.NoError(t, err)
			require.NoError(t, w.Close())
			require.Equal(t, tc.want, out.String())
		})
	}
}

func Test_UnknownFormat(t *testing.T) {
	_, err := New("xml", &bytes.Buffer{}, arrow.NewSchema(nil, nil), Options{})
	require.ErrorIs(t, err, ErrFormat)
}
