package decode

import (
	"encoding/binary"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// Batch builders for hand-written levels and values.

func le32(vs ...int32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

func i32Vals(vs ...int32) Values { return Values{N: len(vs), Width: 4, Fixed: le32(vs...)} }

func strVals(ss ...string) Values {
	v := Values{N: len(ss), Offsets: []int32{0}}
	for _, s := range ss {
		v.Data = append(v.Data, s...)
		v.Offsets = append(v.Offsets, int32(len(v.Data)))
	}
	return v
}

func boolVals(bs ...bool) Values {
	v := Values{N: len(bs), Width: -1}
	for i, b := range bs {
		setBit(&v.Bits, i, b)
	}
	return v
}

func batch(rows int, def, rep []int16, vals Values) *LeafBatch {
	n := rows
	if def != nil {
		n = len(def)
	}
	return &LeafBatch{Def: def, Rep: rep, Vals: vals, Entries: n, Rows: rows}
}

func mustSchema(t *testing.T, elems ...format.SchemaElement) *Schema {
	t.Helper()
	s, err := BuildSchema(append([]format.SchemaElement{root(-1)}, elems...))
	if err == nil {
		return s
	}
	// root(-1) is a placeholder: count the top-level fields by walking num_children.
	n, pos := 0, 0
	var skip func()
	skip = func() {
		e := elems[pos]
		pos++
		if e.NumChildren != nil {
			for i := 0; i < int(*e.NumChildren); i++ {
				skip()
			}
		}
	}
	for pos < len(elems) {
		skip()
		n++
	}
	s, err = BuildSchema(append([]format.SchemaElement{root(n)}, elems...))
	require.NoError(t, err)
	return s
}

// maskPadding clears the validity bits past each array's length (Arrow leaves them
// unspecified), so arrays compare by their meaningful bits.
func maskPadding(a *arrowipc.Array) *arrowipc.Array {
	if a == nil {
		return nil
	}
	if a.Validity != nil && a.Len%8 != 0 && len(a.Validity) > a.Len/8 {
		v := append([]byte(nil), a.Validity...)
		v[a.Len/8] &= byte(1)<<(a.Len%8) - 1
		a.Validity = v
	}
	for _, c := range a.Children {
		maskPadding(c)
	}
	return a
}

func Test_Assemble(t *testing.T) {
	i32 := typ(format.Int32)
	str := func(e *format.SchemaElement) {
		e.Type = ptr(format.ByteArray)
		e.ConvertedType = ptr(format.ConvertedUTF8)
	}
	list := conv(format.ConvertedList)
	tests := []struct {
		name    string
		schema  []format.SchemaElement
		rows    int
		batches []*LeafBatch // by leaf index
		filter  bool         // AssembleLeafForFilter
		want    *arrowipc.Array
	}{
		{
			name:    "flat required int32",
			schema:  []format.SchemaElement{el("a", req, i32)},
			rows:    3,
			batches: []*LeafBatch{batch(3, nil, nil, i32Vals(1, 2, 3))},
			want:    &arrowipc.Array{Len: 3, Data: le32(1, 2, 3)},
		},
		{
			name:    "flat nullable int32",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    4,
			batches: []*LeafBatch{batch(4, []int16{1, 0, 1, 1}, nil, i32Vals(10, 20, 30))},
			want:    &arrowipc.Array{Len: 4, NullCount: 1, Validity: []byte{0x0d}, Data: le32(10, 0, 20, 30)},
		},
		{
			name:    "flat nullable int32 without nulls has no validity",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    2,
			batches: []*LeafBatch{batch(2, []int16{1, 1}, nil, i32Vals(10, 20))},
			want:    &arrowipc.Array{Len: 2, Data: le32(10, 20)},
		},
		{
			name:    "flat nullable strings",
			schema:  []format.SchemaElement{el("s", opt, str)},
			rows:    3,
			batches: []*LeafBatch{batch(3, []int16{1, 0, 1}, nil, strVals("ab", "c"))},
			want:    &arrowipc.Array{Len: 3, NullCount: 1, Validity: []byte{0x05}, Offsets: []int32{0, 2, 2, 3}, Data: []byte("abc")},
		},
		{
			name:    "flat required strings",
			schema:  []format.SchemaElement{el("s", req, str)},
			rows:    2,
			batches: []*LeafBatch{batch(2, nil, nil, strVals("", "xyz"))},
			want:    &arrowipc.Array{Len: 2, Offsets: []int32{0, 0, 3}, Data: []byte("xyz")},
		},
		{
			name:    "flat nullable booleans",
			schema:  []format.SchemaElement{el("b", opt, typ(format.Boolean))},
			rows:    4,
			batches: []*LeafBatch{batch(4, []int16{1, 0, 1, 1}, nil, boolVals(true, false, true))},
			want:    &arrowipc.Array{Len: 4, NullCount: 1, Validity: []byte{0x0d}, Data: []byte{0x09}},
		},
		{
			// [1, null], null, [], [2]
			name:    "list<int> with null and empty lists and a null element",
			schema:  []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, i32)},
			rows:    4,
			batches: []*LeafBatch{batch(4, []int16{3, 2, 0, 1, 3}, []int16{0, 1, 0, 0, 0}, i32Vals(1, 2))},
			want: &arrowipc.Array{Len: 4, NullCount: 1, Validity: []byte{0x0d}, Offsets: []int32{0, 2, 2, 2, 3},
				Children: []*arrowipc.Array{{Len: 3, NullCount: 1, Validity: []byte{0x05}, Data: le32(1, 0, 2)}}},
		},
		{
			// [[1, 2], [], null, [null]], null, [], [[3]]
			name: "list<list<int>>",
			schema: []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)),
				el("element", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, i32)},
			rows:    4,
			batches: []*LeafBatch{batch(4, []int16{5, 5, 3, 2, 4, 0, 1, 5}, []int16{0, 2, 1, 1, 1, 0, 0, 0}, i32Vals(1, 2, 3))},
			want: &arrowipc.Array{Len: 4, NullCount: 1, Validity: []byte{0x0d}, Offsets: []int32{0, 4, 4, 4, 5},
				Children: []*arrowipc.Array{{Len: 5, NullCount: 1, Validity: []byte{0x1b}, Offsets: []int32{0, 2, 2, 2, 3, 4},
					Children: []*arrowipc.Array{{Len: 4, NullCount: 1, Validity: []byte{0x0b}, Data: le32(1, 2, 0, 3)}}}}},
		},
		{
			// [{x: 1, y: 2}, null, {x: null, y: 3}], []
			name: "list<struct<x, y>> with a null struct and a required child",
			schema: []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)),
				el("element", opt, children(2)), el("x", opt, i32), el("y", req, i32)},
			rows: 2,
			batches: []*LeafBatch{
				batch(2, []int16{4, 2, 3, 1}, []int16{0, 1, 1, 0}, i32Vals(1)),
				batch(2, []int16{3, 2, 3, 1}, []int16{0, 1, 1, 0}, i32Vals(2, 3)),
			},
			want: &arrowipc.Array{Len: 2, Offsets: []int32{0, 3, 3},
				Children: []*arrowipc.Array{{Len: 3, NullCount: 1, Validity: []byte{0x05}, Children: []*arrowipc.Array{
					{Len: 3, NullCount: 2, Validity: []byte{0x01}, Data: le32(1, 0, 0)},
					{Len: 3, Data: le32(2, 0, 3)},
				}}}},
		},
		{
			// {"a": 1, "b": null}, null, {}
			name: "map<string, int>",
			schema: []format.SchemaElement{el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", req, str), el("value", opt, i32)},
			rows: 3,
			batches: []*LeafBatch{
				batch(3, []int16{2, 2, 0, 1}, []int16{0, 1, 0, 0}, strVals("a", "b")),
				batch(3, []int16{3, 2, 0, 1}, []int16{0, 1, 0, 0}, i32Vals(1)),
			},
			want: &arrowipc.Array{Len: 3, NullCount: 1, Validity: []byte{0x05}, Offsets: []int32{0, 2, 2, 2},
				Children: []*arrowipc.Array{{Len: 2, Children: []*arrowipc.Array{
					{Len: 2, Offsets: []int32{0, 1, 2}, Data: []byte("ab")},
					{Len: 2, NullCount: 1, Validity: []byte{0x01}, Data: le32(1, 0)},
				}}}},
		},
		{
			// {a: 1, b: 2}, null, {a: 3, b: null}
			name:   "struct with a null parent and a required child",
			schema: []format.SchemaElement{el("s", opt, children(2)), el("a", req, i32), el("b", opt, i32)},
			rows:   3,
			batches: []*LeafBatch{
				batch(3, []int16{1, 0, 1}, nil, i32Vals(1, 3)),
				batch(3, []int16{2, 0, 1}, nil, i32Vals(2)),
			},
			want: &arrowipc.Array{Len: 3, NullCount: 1, Validity: []byte{0x05}, Children: []*arrowipc.Array{
				{Len: 3, Data: le32(1, 0, 3)},
				{Len: 3, NullCount: 2, Validity: []byte{0x01}, Data: le32(2, 0, 0)},
			}},
		},
		{
			name:   "bare repeated int32",
			schema: []format.SchemaElement{el("r", rpt, i32)},
			rows:   3,
			// [1, 2], [], [3]
			batches: []*LeafBatch{batch(3, []int16{1, 1, 0, 1}, []int16{0, 1, 0, 0}, i32Vals(1, 2, 3))},
			want: &arrowipc.Array{Len: 3, Offsets: []int32{0, 2, 2, 3},
				Children: []*arrowipc.Array{{Len: 3, Data: le32(1, 2, 3)}}},
		},
		{
			name:    "UNKNOWN (null) column",
			schema:  []format.SchemaElement{el("n", opt, i32, logical(format.LogicalType{Kind: format.LogicalUnknown}))},
			rows:    3,
			batches: []*LeafBatch{batch(3, []int16{0, 0, 0}, nil, Values{Offsets: []int32{0}})},
			want:    &arrowipc.Array{Len: 3, NullCount: 3, Validity: []byte{0}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema...)
			got, err := Assemble(s.Columns[0], tc.rows, func(i int) *LeafBatch { return tc.batches[i] })
			require.NoError(t, err)
			require.Equal(t, tc.want, maskPadding(got))
		})
	}
}

// Test_AssembleLeafForFilter: a filter on a required leaf under a null parent sees a null.
func Test_AssembleLeafForFilter(t *testing.T) {
	s := mustSchema(t, el("s", opt, children(1)), el("a", req, typ(format.Int32)))
	b := batch(3, []int16{1, 0, 1}, nil, i32Vals(1, 3))
	leaf := s.Columns[0].Children[0]
	got, err := AssembleLeafForFilter(leaf, 3, func(int) *LeafBatch { return b })
	require.NoError(t, err)
	require.Equal(t, &arrowipc.Array{Len: 3, NullCount: 1, Validity: []byte{0x05}, Data: le32(1, 0, 3)}, maskPadding(got))
	got, err = Assemble(leaf, 3, func(int) *LeafBatch { return b })
	require.NoError(t, err)
	require.Equal(t, &arrowipc.Array{Len: 3, Data: le32(1, 0, 3)}, got)
}

func Test_Assemble_errors(t *testing.T) {
	i32 := typ(format.Int32)
	list := conv(format.ConvertedList)
	listInt := []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)), el("element", opt, i32)}
	listStruct := []format.SchemaElement{el("a", opt, children(1), list), el("list", rpt, children(1)),
		el("element", opt, children(2)), el("x", opt, i32), el("y", opt, i32)}
	tests := []struct {
		name    string
		schema  []format.SchemaElement
		rows    int
		batches []*LeafBatch
		want    string
	}{
		{
			name:    "leaf not read",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    1,
			batches: []*LeafBatch{nil},
			want:    "not read",
		},
		{
			name:    "rows mismatch",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    4,
			batches: []*LeafBatch{batch(3, []int16{1, 1, 1}, nil, i32Vals(1, 2, 3))},
			want:    "has 3 rows, expected 4",
		},
		{
			name:    "flat leaf with more entries than rows",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    2,
			batches: []*LeafBatch{{Def: []int16{1, 1, 1}, Entries: 3, Rows: 2, Vals: i32Vals(1, 2, 3)}},
			want:    "3 values for 2 rows",
		},
		{
			name:    "fewer values than non-null slots",
			schema:  []format.SchemaElement{el("a", opt, i32)},
			rows:    2,
			batches: []*LeafBatch{batch(2, []int16{1, 1}, nil, i32Vals(1))},
			want:    "1 values for 2 non-null slots",
		},
		{
			name:    "repetition levels give more rows than announced",
			schema:  listInt,
			rows:    2,
			batches: []*LeafBatch{batch(2, []int16{3, 3, 3}, []int16{0, 0, 0}, i32Vals(1, 2, 3))},
			want:    "repetition levels give 3 rows, expected 2",
		},
		{
			name:    "first repetition level is not 0",
			schema:  listInt,
			rows:    1,
			batches: []*LeafBatch{batch(1, []int16{3, 3}, []int16{1, 0}, i32Vals(1, 2))},
			want:    "repetition levels give",
		},
		{
			name:    "leaf value spanning two entries (repetition level deeper than the column)",
			schema:  listInt,
			rows:    1,
			batches: []*LeafBatch{batch(1, []int16{3, 3}, []int16{0, 2}, i32Vals(1, 2))},
			want:    "spans 2 level entries",
		},
		{
			name:   "leaves disagree on list lengths",
			schema: listStruct,
			rows:   2,
			batches: []*LeafBatch{
				batch(2, []int16{4, 4, 4}, []int16{0, 1, 0}, i32Vals(1, 2, 3)),
				batch(2, []int16{4, 4, 4}, []int16{0, 0, 1}, i32Vals(1, 2, 3)),
			},
			want: "leaves disagree on list lengths",
		},
		{
			name:   "leaves disagree on which lists are empty",
			schema: listStruct,
			rows:   2,
			batches: []*LeafBatch{
				batch(2, []int16{1, 4}, []int16{0, 0}, i32Vals(1)),
				batch(2, []int16{4, 1}, []int16{0, 0}, i32Vals(1)),
			},
			want: "leaves disagree on list lengths",
		},
		{
			name: "null map key",
			schema: []format.SchemaElement{el("m", opt, children(1), conv(format.ConvertedMap)),
				el("key_value", rpt, children(2)), el("key", opt, i32), el("value", opt, i32)},
			rows: 1,
			batches: []*LeafBatch{
				batch(1, []int16{2}, []int16{0}, i32Vals()),
				batch(1, []int16{3}, []int16{0}, i32Vals(1)),
			},
			want: "null key",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema...)
			_, err := Assemble(s.Columns[0], tc.rows, func(i int) *LeafBatch { return tc.batches[i] })
			require.ErrorContains(t, err, tc.want)
		})
	}
}
