package decode

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

func leafConv(t *testing.T, tp format.Type, opts ...elOpt) *Converter {
	t.Helper()
	s := mustSchema(t, el("c", opt, append([]elOpt{typ(tp)}, opts...)...))
	return s.Columns[0].Conv
}

func int96(nanos uint64, julianDay uint32) []byte {
	b := binary.LittleEndian.AppendUint64(nil, nanos)
	return binary.LittleEndian.AppendUint32(b, julianDay)
}

func le64(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// le128 is v sign-extended to 16 little-endian bytes.
func le128(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
		b = binary.LittleEndian.AppendUint64(b, uint64(v>>63))
	}
	return b
}

func Test_Converter_ConvertFixed(t *testing.T) {
	const day = 86400 * 1000000 // µs
	tests := []struct {
		name string
		conv *Converter
		src  []byte
		n    int
		want []byte
	}{
		{name: "INT96 epoch", conv: leafConv(t, format.Int96), src: int96(0, 2440588), n: 1, want: le64(0)},
		{name: "INT96 one µs before the epoch", conv: leafConv(t, format.Int96), src: int96(86400e9-1000, 2440587), n: 1, want: le64(-1)},
		{name: "INT96 nanoseconds truncate to µs", conv: leafConv(t, format.Int96), src: int96(1999, 2440589), n: 1, want: le64(day + 1)},
		{name: "INT96 Julian day 0", conv: leafConv(t, format.Int96), src: int96(0, 0), n: 1, want: le64(-2440588 * day)},
		{name: "INT96 year 9999 (past int64 nanoseconds)", conv: leafConv(t, format.Int96),
			src: int96(0, 2440588+2932896), n: 1, want: le64(2932896 * day)},
		{name: "INT96 two values", conv: leafConv(t, format.Int96), src: append(int96(5000, 2440588), int96(0, 2440589)...), n: 2, want: le64(5, day)},
		{name: "INT_8 narrows", conv: leafConv(t, format.Int32, conv(format.ConvertedInt8)), src: le32(-1, 127, -128), n: 3, want: []byte{0xff, 0x7f, 0x80}},
		{name: "UINT_16 narrows", conv: leafConv(t, format.Int32, conv(format.ConvertedUint16)), src: le32(65535, 1), n: 2, want: []byte{0xff, 0xff, 1, 0}},
		{name: "INT32 decimal sign-extends", conv: leafConv(t, format.Int32, decimal(9, 2)), src: le32(-5, 7), n: 2, want: le128(-5, 7)},
		{name: "INT64 decimal sign-extends", conv: leafConv(t, format.Int64, decimal(18, 2)), src: le64(-1<<62, 1), n: 2, want: le128(-1<<62, 1)},
		{name: "FLBA(3) decimal negative", conv: leafConv(t, format.FixedLenByteArray, tlen(3), decimal(5, 0)), src: []byte{0xff, 0xff, 0xfe, 0x00, 0x01, 0x00}, n: 2, want: le128(-2, 256)},
		{name: "FLBA(17) decimal256", conv: leafConv(t, format.FixedLenByteArray, tlen(17), decimal(40, 0)),
			src: append(bytes.Repeat([]byte{0xff}, 16), 0xfb), n: 1, want: append(le128(-5), bytes.Repeat([]byte{0xff}, 16)...)},
		{name: "INTERVAL months, days, millis", conv: leafConv(t, format.FixedLenByteArray, tlen(12), conv(format.ConvertedInterval)),
			src: append(le32(14, 3), le32(1500)...), n: 1, want: append(le32(14, 3), le64(1500*1000000)...)},
		{name: "INTERVAL max millis", conv: leafConv(t, format.FixedLenByteArray, tlen(12), conv(format.ConvertedInterval)),
			src: append(le32(0, 0), 0xff, 0xff, 0xff, 0xff), n: 1, want: append(le32(0, 0), le64(4294967295*1000000)...)},
		{name: "copy int64", conv: leafConv(t, format.Int64), src: le64(1, 2, 3), n: 2, want: le64(1, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.conv.ConvertFixed(nil, tc.src, tc.n)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.n*tc.conv.OutWidth, len(got))
		})
	}
}

func Test_appendDecimalBE(t *testing.T) {
	tests := []struct {
		name  string
		be    []byte
		width int
		want  []byte
		err   bool
	}{
		{name: "empty is zero", be: nil, width: 16, want: le128(0)},
		{name: "one byte positive", be: []byte{0x01}, width: 16, want: le128(1)},
		{name: "one byte negative", be: []byte{0xff}, width: 16, want: le128(-1)},
		{name: "-128", be: []byte{0x80}, width: 16, want: le128(-128)},
		{name: "+128 needs a zero byte", be: []byte{0x00, 0x80}, width: 16, want: le128(128)},
		{name: "big endian order", be: []byte{0x01, 0x02, 0x03}, width: 16, want: le128(0x010203)},
		{name: "16 bytes exactly", be: append([]byte{0x7f}, bytes.Repeat([]byte{0xff}, 15)...), width: 16,
			want: append(bytes.Repeat([]byte{0xff}, 15), 0x7f)},
		{name: "17 bytes with a redundant sign byte (negative)", be: bytes.Repeat([]byte{0xff}, 17), width: 16, want: le128(-1)},
		{name: "17 bytes with a redundant sign byte (positive)", be: append(make([]byte, 16), 0x05), width: 16, want: le128(5)},
		{name: "17 bytes that overflow", be: append([]byte{0x01}, make([]byte, 16)...), width: 16, err: true},
		{name: "17 bytes: 2^127 does not fit", be: append([]byte{0x00, 0x80}, make([]byte, 15)...), width: 16, err: true},
		{name: "17 bytes: -2^127-1 does not fit", be: append([]byte{0xff, 0x7f}, bytes.Repeat([]byte{0xff}, 15)...), width: 16, err: true},
		{name: "17 bytes: -2^127 fits", be: append([]byte{0xff, 0x80}, make([]byte, 15)...), width: 16,
			want: append(make([]byte, 15), 0x80)},
		{name: "into 32 bytes", be: []byte{0xfe}, width: 32, want: bytes.Repeat([]byte{0xff}, 32)[:32:32]},
	}
	tests[len(tests)-1].want = append([]byte{0xfe}, bytes.Repeat([]byte{0xff}, 31)...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendDecimalBE(nil, tc.be, tc.width)
			if tc.err {
				require.ErrorIs(t, err, ErrValue)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_Converter_ConvertVar(t *testing.T) {
	c := leafConv(t, format.ByteArray, decimal(20, 2))
	v := strVals("\x01", "\xff\x00", "", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x2a")
	got, err := c.ConvertVar(nil, v.Offsets, v.Data, v.N)
	require.NoError(t, err)
	require.Equal(t, append(append(le128(1, -256), le128(0)...), le128(42)...), got)
	v = strVals("\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	_, err = c.ConvertVar(nil, v.Offsets, v.Data, v.N)
	require.ErrorIs(t, err, ErrValue)
}
