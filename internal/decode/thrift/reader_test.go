package thrift

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func zz(v int64) []byte { return binary.AppendUvarint(nil, uint64(v<<1)^uint64(v>>63)) }

func Test_scalars(t *testing.T) {
	dbl := binary.LittleEndian.AppendUint64(nil, math.Float64bits(-2.5))
	tests := []struct {
		name string
		in   []byte
		read func(r *Reader) (any, error)
		want any
		err  error
		n    int // bytes consumed on success
	}{
		{name: "uvarint 1 byte", in: []byte{0x7f}, read: rdUvarint, want: uint64(127), n: 1},
		{name: "uvarint 2 bytes", in: []byte{0x80, 0x01}, read: rdUvarint, want: uint64(128), n: 2},
		{name: "uvarint max", in: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, read: rdUvarint, want: uint64(math.MaxUint64), n: 10},
		{name: "uvarint overflows 64 bits", in: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, read: rdUvarint, err: ErrVarint},
		{name: "uvarint 11 bytes", in: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, read: rdUvarint, err: ErrVarint},
		{name: "uvarint truncated", in: []byte{0x80, 0x80}, read: rdUvarint, err: ErrTruncated},
		{name: "i64 negative", in: zz(-123456789012), read: func(r *Reader) (any, error) { return r.I64() }, want: int64(-123456789012), n: 6},
		{name: "i64 min", in: zz(math.MinInt64), read: func(r *Reader) (any, error) { return r.I64() }, want: int64(math.MinInt64), n: 10},
		{name: "i32 max", in: zz(math.MaxInt32), read: func(r *Reader) (any, error) { return r.I32() }, want: int32(math.MaxInt32), n: 5},
		{name: "i32 min", in: zz(math.MinInt32), read: func(r *Reader) (any, error) { return r.I32() }, want: int32(math.MinInt32), n: 5},
		{name: "i32 overflow", in: zz(math.MaxInt32 + 1), read: func(r *Reader) (any, error) { return r.I32() }, err: ErrVarint},
		{name: "i16 -1", in: zz(-1), read: func(r *Reader) (any, error) { return r.I16() }, want: int16(-1), n: 1},
		{name: "i16 overflow", in: zz(math.MaxInt16 + 1), read: func(r *Reader) (any, error) { return r.I16() }, err: ErrVarint},
		{name: "i8 is a raw byte", in: []byte{0xfe}, read: func(r *Reader) (any, error) { return r.I8() }, want: int8(-2), n: 1},
		{name: "i8 empty", in: nil, read: func(r *Reader) (any, error) { return r.I8() }, err: ErrTruncated},
		{name: "double", in: dbl, read: func(r *Reader) (any, error) { return r.Double() }, want: -2.5, n: 8},
		{name: "double truncated", in: dbl[:7], read: func(r *Reader) (any, error) { return r.Double() }, err: ErrTruncated},
		{name: "binary", in: []byte{3, 'a', 'b', 'c', 'x'}, read: func(r *Reader) (any, error) { return r.Binary() }, want: []byte("abc"), n: 4},
		{name: "binary empty is non-nil", in: []byte{0}, read: func(r *Reader) (any, error) { return r.Binary() }, want: []byte{}, n: 1},
		{name: "binary longer than input", in: []byte{4, 'a', 'b', 'c'}, read: func(r *Reader) (any, error) { return r.Binary() }, err: ErrSize},
		{name: "binary huge length", in: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, read: func(r *Reader) (any, error) { return r.Binary() }, err: ErrSize},
		{name: "string", in: []byte{2, 'h', 'i'}, read: func(r *Reader) (any, error) { return r.String() }, want: "hi", n: 3},
		{name: "bool elem true", in: []byte{1}, read: func(r *Reader) (any, error) { return r.BoolElem() }, want: true, n: 1},
		{name: "bool elem false (2)", in: []byte{2}, read: func(r *Reader) (any, error) { return r.BoolElem() }, want: false, n: 1},
		{name: "bool elem false (0)", in: []byte{0}, read: func(r *Reader) (any, error) { return r.BoolElem() }, want: false, n: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			got, err := tc.read(r)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.n, r.Offset())
		})
	}
}

func rdUvarint(r *Reader) (any, error) { return r.Uvarint() }

func Test_Binary_doesNotAlias(t *testing.T) {
	in := []byte{2, 'a', 'b'}
	b, err := NewReader(in).Binary()
	require.NoError(t, err)
	in[1] = 'z'
	require.Equal(t, []byte("ab"), b)
}

func Test_errorMessages(t *testing.T) {
	r := NewReader([]byte{0x15, 0x80})
	_, _, err := r.FieldHeader(0)
	require.NoError(t, err)
	_, err = r.I32()
	require.Equal(t, "thrift: truncated input at offset 2", err.Error())

	deep := bytes.Repeat([]byte{0x1c}, MaxDepth+1) // struct field 1 holding a struct, nested
	err = NewReader(deep).Skip(Struct)
	require.ErrorIs(t, err, ErrDepth)
	require.Equal(t, "thrift: nesting too deep at offset 64", err.Error())
}

func Test_FieldHeader(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		prev    int16
		id      int16
		typ     Type
		err     error
		consume int
	}{
		{name: "delta 1 i32", in: []byte{0x15}, prev: 0, id: 1, typ: I32, consume: 1},
		{name: "delta 15 binary", in: []byte{0xf8}, prev: 3, id: 18, typ: Binary, consume: 1},
		{name: "bool true in type", in: []byte{0x21}, prev: 5, id: 7, typ: BoolTrue, consume: 1},
		{name: "bool false in type", in: []byte{0x12}, prev: 0, id: 1, typ: BoolFalse, consume: 1},
		{name: "long form id", in: append([]byte{0x0c}, zz(300)...), prev: 2, id: 300, typ: Struct, consume: 3},
		{name: "long form negative id", in: append([]byte{0x06}, zz(-1)...), prev: 0, id: -1, typ: I64, consume: 2},
		{name: "stop", in: []byte{0x00}, typ: Stop, consume: 1},
		{name: "type 13 (uuid) unsupported", in: []byte{0x1d}, err: ErrType},
		{name: "type 15 invalid", in: []byte{0x1f}, err: ErrType},
		{name: "long form truncated", in: []byte{0x05}, err: ErrTruncated},
		{name: "long form id overflows i16", in: append([]byte{0x05}, zz(40000)...), err: ErrVarint},
		{name: "empty", in: nil, err: ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			id, typ, err := r.FieldHeader(tc.prev)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.id, id)
			require.Equal(t, tc.typ, typ)
			require.Equal(t, tc.consume, r.Offset())
		})
	}
}

func Test_ListHeader_MapHeader(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		isMap  bool
		elem   Type
		n      int
		err    error
		offset int
	}{
		{name: "short list of i32", in: []byte{0x35, 2, 4, 6}, elem: I32, n: 3, offset: 1},
		{name: "long list of bools", in: append([]byte{0xf1, 20}, bytes.Repeat([]byte{1}, 20)...), elem: BoolTrue, n: 20, offset: 2},
		{name: "empty list with type 0", in: []byte{0x00}, elem: Stop, n: 0, offset: 1},
		{name: "list of 14 empty structs", in: append([]byte{0xec}, make([]byte, 14)...), elem: Struct, n: 14, offset: 1},
		{name: "list of 15 empty structs needs 15 bytes", in: append([]byte{0xfc, 15}, make([]byte, 14)...), err: ErrSize},
		{name: "doubles need 8 bytes each", in: append([]byte{0x27}, make([]byte, 15)...), err: ErrSize},
		{name: "two doubles", in: append([]byte{0x27}, make([]byte, 16)...), elem: Double, n: 2, offset: 1},
		{name: "huge long size", in: []byte{0xf8, 0xff, 0xff, 0xff, 0xff, 0x0f}, err: ErrSize},
		{name: "size varint overflow", in: []byte{0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, err: ErrVarint},
		{name: "invalid element type", in: []byte{0x1e, 0}, err: ErrType},
		{name: "stop element type", in: []byte{0x10, 0}, err: ErrType},
		{name: "truncated", in: []byte{}, err: ErrTruncated},
		{name: "empty map has no type byte", in: []byte{0x00}, isMap: true, n: 0, offset: 1},
		{name: "map string to i64", in: []byte{0x02, 0x86, 0, 0, 0, 0}, isMap: true, elem: I64, n: 2, offset: 2},
		{name: "map entries need two bytes", in: []byte{0x03, 0x86, 0, 0, 0, 0, 0}, isMap: true, err: ErrSize},
		{name: "map invalid key type", in: []byte{0x01, 0xd6, 0, 0}, isMap: true, err: ErrType},
		{name: "map truncated before types", in: []byte{0x01}, isMap: true, err: ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in)
			var elem Type
			var n int
			var err error
			if tc.isMap {
				_, elem, n, err = r.MapHeader()
			} else {
				elem, n, err = r.ListHeader()
			}
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.elem, elem)
			require.Equal(t, tc.n, n)
			require.Equal(t, tc.offset, r.Offset())
		})
	}
}

// allTypes is a struct using every compact type, with nesting, as a writer would encode it.
func allTypes() []byte {
	b := []byte{0x11, 0x22, 0x33, 0xfe} // bool true (1), bool false (3), i8 (6) = -2
	b = append(b, 0x14)
	b = append(b, zz(-300)...) // i16 (7)
	b = append(b, 0x15)
	b = append(b, zz(70000)...) // i32 (8)
	b = append(b, 0x16)
	b = append(b, zz(-1<<40)...)                                              // i64 (9)
	b = binary.LittleEndian.AppendUint64(append(b, 0x17), 0x400921fb54442d18) // double (10)
	b = append(b, 0x18, 3, 'a', 'b', 'c')                                     // binary (11)
	b = append(b, 0x19, 0x31, 1, 2, 1)                                        // list<bool> (12)
	b = append(b, 0x1a, 0x28, 1, 'x', 2, 'y', 'z')                            // set<binary> (13)
	b = append(b, 0x1b, 0x02, 0x85, 1, 'k', 2, 1, 'l', 4)                     // map<binary,i32> (14)
	b = append(b, 0x1c, 0x15, 2, 0x29, 0x2c, 0x00, 0x15, 4, 0x00, 0x00)       // struct{i32, list<struct>{{},{i32}}} (15)
	b = append(b, 0x09, 0x00, 0x00)                                           // empty list, long-form id (9) zigzag 0 -> id 0
	b = append(b, 0x1b, 0x00)                                                 // empty map
	b = append(b, 0x00)                                                       // stop
	return b
}

func Test_Skip(t *testing.T) {
	in := allTypes()
	r := NewReader(append(append([]byte{}, in...), 0xAA)) // a trailing byte that must not be read
	require.NoError(t, r.Skip(Struct))
	require.Equal(t, len(in), r.Offset())
	require.Equal(t, 1, r.Remaining())

	// Every strict prefix is truncated (or an oversized collection), never a panic or success.
	for i := 0; i < len(in); i++ {
		err := NewReader(in[:i]).Skip(Struct)
		require.True(t, errors.Is(err, ErrTruncated) || errors.Is(err, ErrSize), i, err)
	}
}

func Test_Skip_fieldBoolTakesNoBytes(t *testing.T) {
	r := NewReader([]byte{0x99})
	require.NoError(t, r.Skip(BoolTrue))
	require.Equal(t, 0, r.Offset())
	require.NoError(t, r.SkipElem(BoolTrue))
	require.Equal(t, 1, r.Offset())
	require.ErrorIs(t, NewReader([]byte{1}).Skip(Stop), ErrType)
}

func Test_Skip_depth(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		err  error
	}{
		{name: "structs at the limit", in: append(bytes.Repeat([]byte{0x1c}, MaxDepth-1), make([]byte, MaxDepth)...)},
		{name: "structs beyond the limit", in: append(bytes.Repeat([]byte{0x1c}, MaxDepth), make([]byte, MaxDepth+1)...), err: ErrDepth},
		{name: "lists beyond the limit", in: append([]byte{0x19}, bytes.Repeat([]byte{0x19}, 100)...), err: ErrDepth},
		{name: "maps beyond the limit", in: append([]byte{0x1b}, bytes.Repeat([]byte{0x01, 0xbb}, 100)...), err: ErrDepth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := NewReader(tc.in).Skip(Struct)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
		})
	}
}

func Test_ReadStruct_ids(t *testing.T) {
	// Field ids: 1 (delta), 5 (delta 4), 300 (long form), 301 (delta from 300).
	in := append([]byte{0x15, 0, 0x45, 0, 0x05}, zz(300)...)
	in = append(in, 0, 0x15, 0, 0)
	var ids []int16
	r := NewReader(in)
	err := r.ReadStruct(func(id int16, typ Type) error {
		ids = append(ids, id)
		return r.Skip(typ)
	})
	require.NoError(t, err)
	require.Equal(t, []int16{1, 5, 300, 301}, ids)
	require.Equal(t, 0, r.Remaining())
}
