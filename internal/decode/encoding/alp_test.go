//go:build !pqscan_lean

package encoding

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// alpSpecExample is AlpEncoding.md's worked example: {1500.0, NaN, 2500.0, 333.5} with
// (exponent 4, factor 3), frame 3335, 15-bit deltas {11665, 11665, 21665, 0} and the NaN as
// the one exception, behind the 7-byte header and the one-entry offset array.
func alpSpecExample() []byte {
	b := []byte{0, 0, 10}
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 4) // vector 0 starts after the offset array
	b = append(b, 4, 3)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint64(b, 3335)
	b = append(b, 15)
	var packed [8]byte
	for i, d := range []uint64{11665, 11665, 21665, 0} {
		for k := 0; k < 15; k++ {
			if d>>k&1 != 0 {
				p := i*15 + k
				packed[p>>3] |= 1 << (p & 7)
			}
		}
	}
	b = append(b, packed[:]...)
	b = binary.LittleEndian.AppendUint16(b, 1)
	return binary.LittleEndian.AppendUint64(b, 0x7ff8000000000001)
}

func f64s(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func Test_ALP_specExample(t *testing.T) {
	src := alpSpecExample()
	require.Equal(t, 7+4+31, len(src)) // the spec's 31-byte vector
	got, err := ALP([]byte{0xee}, src, 4, 8)
	require.NoError(t, err)
	require.Equal(t, byte(0xee), got[0]) // appended, not overwritten
	v := f64s(got[1:])
	require.Equal(t, 1500.0, v[0])
	require.Equal(t, uint64(0x7ff8000000000001), math.Float64bits(v[1])) // the NaN's own bits
	require.Equal(t, 2500.0, v[2])
	require.Equal(t, 333.5, v[3])
}

// alpDistribution follows parquet-testing's alp_extended.zstd.parquet (its README): two-digit
// decimals, NaNs with payloads, infinities, -0, the smallest subnormal, a full-mantissa
// value, large magnitudes, every other value and every value full-mantissa, four digits, a
// constant, integer values up to ±8e18; n values, as DOUBLE (width 8) or FLOAT (width 4).
func alpDistribution(n, width int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	base := func() float64 { return float64(r.IntN(2001)-1000) / 100 }
	var out []byte
	for i := 0; i < n; i++ {
		v, raw := base(), uint64(0)
		switch {
		case i%1024 == 0 && i/1024%10 == 1:
			raw = 0x7ff8000000000000
		case i == 1500 || i%2999 == 1500:
			raw = 0x7ff800deadbeef00
		case i%1024 == 1023 && i/1024%10 == 1:
			raw = 0xfff8000000000001
		case i%1000 == 2000%1000 && i/1000%3 == 2:
			v = math.Inf(1)
		case i%1000 == 1:
			v = math.Inf(-1)
		case i%997 == 2:
			v = math.Copysign(0, -1)
		case i%991 == 3:
			v = math.SmallestNonzeroFloat64
			if width == 4 {
				v = float64(math.SmallestNonzeroFloat32)
			}
		case i%500 == 7:
			v = 3.141592653589793
		case i%700 == 11:
			v = 44974934523.343
		case i%700 == 12:
			v = -1243432432.3432
		case i/1024%10 == 4 && i%2 == 0, i/1024%10 == 5:
			v = r.NormFloat64() * 1e3
		case i/1024%10 == 6:
			v = float64(r.IntN(200001)-100000) / 10000
		case i/1024%10 == 7:
			v = 7.77
		case i/1024%10 == 8 && i%32 < 4:
			v = float64(int64(r.Uint64N(16e18)) - 8e18)
		}
		if width == 8 {
			if raw == 0 {
				raw = math.Float64bits(v)
			}
			out = binary.LittleEndian.AppendUint64(out, raw)
			continue
		}
		bits32 := math.Float32bits(float32(v))
		if raw != 0 { // keep the payload's sign and top bits in single precision
			bits32 = uint32(raw>>32)&0x80000000 | 0x7fc00000 | uint32(raw)&0xfff
		}
		out = binary.LittleEndian.AppendUint32(out, bits32)
	}
	return out
}

func Test_ALP_roundTrip(t *testing.T) {
	for _, width := range []int{4, 8} {
		for _, tc := range []struct{ n, logSize int }{
			{9032, 10}, {9032, 12}, {9032, 5}, {1000, 3}, {1, 10}, {0, 10}, {40000, 15}, {1024, 10}, {1025, 10},
		} {
			vals := alpDistribution(tc.n, width, uint64(tc.n*31+tc.logSize))
			page := AppendALP(nil, vals, width, tc.logSize)
			got, err := ALP(nil, page, tc.n, width)
			require.NoError(t, err, "width %d n %d log %d", width, tc.n, tc.logSize)
			require.Equal(t, len(vals), len(got))
			for i := 0; i < tc.n; i++ {
				if string(got[i*width:(i+1)*width]) != string(vals[i*width:(i+1)*width]) {
					t.Fatalf("width %d n %d log %d: value %d is %x, want %x", width, tc.n, tc.logSize, i, got[i*width:(i+1)*width], vals[i*width:(i+1)*width])
				}
			}
		}
	}
}

// Test_ALP_compresses checks the encoder the other tests rely on does what ALP is for: two-digit
// decimals take no exceptions and narrow deltas, a constant takes zero bits.
func Test_ALP_compresses(t *testing.T) {
	var vals []byte
	for i := 0; i < 1024; i++ {
		vals = binary.LittleEndian.AppendUint64(vals, math.Float64bits(float64(i%2001-1000)/100))
	}
	page := AppendALP(nil, vals, 8, 10)
	v := page[7+4:]
	require.Equal(t, uint16(0), binary.LittleEndian.Uint16(v[2:])) // no exceptions
	require.Equal(t, byte(10), v[12])                              // -10.00 .. 0.23, 1024 steps of 0.01
	require.True(t, len(page) < len(vals)/5)

	vals = vals[:0]
	for i := 0; i < 100; i++ {
		vals = binary.LittleEndian.AppendUint32(vals, math.Float32bits(7.77))
	}
	page = AppendALP(nil, vals, 4, 10)
	require.Equal(t, byte(0), page[7+4+8]) // bit width 0
	require.Equal(t, 7+4+9, len(page))
}

func Test_ALP_errors(t *testing.T) {
	good := alpSpecExample()
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tests := []struct {
		name  string
		src   []byte
		n, w  int
		want  error
		inMsg string
	}{
		{"width", good, 4, 2, ErrArgument, ""},
		{"negative n", good, -1, 8, ErrArgument, ""},
		{"short header", good[:6], 4, 8, ErrTruncated, ""},
		{"mode", mod(func(b []byte) []byte { b[0] = 1; return b }), 4, 8, ErrALP, "compression mode"},
		{"integer encoding", mod(func(b []byte) []byte { b[1] = 1; return b }), 4, 8, ErrALP, ""},
		{"log size small", mod(func(b []byte) []byte { b[2] = 2; return b }), 4, 8, ErrALP, "log_vector_size"},
		{"log size large", mod(func(b []byte) []byte { b[2] = 16; return b }), 4, 8, ErrALP, ""},
		{"element count", good, 5, 8, ErrALP, "elements"},
		{"negative element count", mod(func(b []byte) []byte { b[6] = 0x80; return b }), 4, 8, ErrALP, ""},
		{"offsets truncated", good[:9], 4, 8, ErrTruncated, ""},
		{"offset misplaced", mod(func(b []byte) []byte { b[7] = 8; return b }), 4, 8, ErrALP, "offset"},
		{"vector header truncated", good[:16], 4, 8, ErrTruncated, ""},
		{"exponent", mod(func(b []byte) []byte { b[11] = 19; return b }), 4, 8, ErrALP, "exponent"},
		{"factor above exponent", mod(func(b []byte) []byte { b[12] = 5; return b }), 4, 8, ErrALP, ""},
		{"too many exceptions", mod(func(b []byte) []byte { b[13] = 5; return b }), 4, 8, ErrALP, "exceptions"},
		{"bit width", mod(func(b []byte) []byte { b[23] = 65; return b }), 4, 8, ErrBitWidth, ""},
		{"packed truncated", good[:30], 4, 8, ErrTruncated, ""},
		{"exception truncated", good[:len(good)-1], 4, 8, ErrTruncated, ""},
		{"exception position", mod(func(b []byte) []byte { b[32] = 4; return b }), 4, 8, ErrALP, "position"},
		{"float exponent", mod(func(b []byte) []byte { b[11] = 11; return b }), 4, 4, ErrALP, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ALP([]byte{1, 2}, tc.src, tc.n, tc.w)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.inMsg != "" {
				require.True(t, strings.Contains(err.Error(), tc.inMsg), err.Error())
			}
			require.Equal(t, []byte{1, 2}, out) // dst as it was
		})
	}
}

// FuzzALP: arbitrary bytes never panic, and an accepted page gives exactly n values; floats
// drawn by the fuzzer round-trip through AppendALP bit for bit.
func FuzzALP(f *testing.F) {
	f.Add(alpSpecExample(), uint16(4), false, []byte{})
	f.Add(AppendALP(nil, alpDistribution(100, 4, 1), 4, 3), uint16(100), true, alpDistribution(9, 8, 2))
	f.Add(AppendALP(nil, alpDistribution(2000, 8, 3), 8, 10), uint16(2000), false, alpDistribution(33, 4, 4))
	f.Fuzz(func(t *testing.T, src []byte, n uint16, float bool, vals []byte) {
		w := 8
		if float {
			w = 4
		}
		out, err := ALP(nil, src, int(n), w)
		if err == nil && len(out) != int(n)*w {
			t.Fatalf("%d bytes for %d values", len(out), n)
		}
		vals = vals[:len(vals)/w*w]
		if len(vals)/w > 300 {
			vals = vals[:300*w]
		}
		page := AppendALP(nil, vals, w, 3+int(n)%5)
		got, err := ALP(nil, page, len(vals)/w, w)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(vals) {
			t.Fatalf("round trip: %x, want %x", got, vals)
		}
	})
}
