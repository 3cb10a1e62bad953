package roaring

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/pqscan/pqscan/internal/require"
)

var unbounded = Limits{MaxValue: math.MaxUint64}

// serialize writes vals with the reference implementation (portable 64-bit format), run
// containers where they are smaller.
func serialize(t testing.TB, vals []uint64) []byte {
	bm := roaring64.New()
	bm.AddMany(vals)
	bm.RunOptimize()
	var buf bytes.Buffer
	_, err := bm.WriteTo(&buf)
	require.NoError(t, err)
	return buf.Bytes()
}

// expand lists the values of runs.
func expand(rs []Range) []uint64 {
	var out []uint64
	for _, r := range rs {
		for v := r.Start; v < r.End; v++ {
			out = append(out, v)
		}
	}
	return out
}

func Test_Decode64_oracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		vals []uint64
	}{
		{name: "empty"},
		{name: "two values", vals: []uint64{0, 9}},
		{name: "array across keys", vals: []uint64{1, 70000, 1 << 20, 1<<32 + 5}},
		{name: "one long run across containers", vals: seq(60000, 140000)},
		{name: "bitset", vals: every(0, 65536, 3)},
		{name: "high key", vals: []uint64{1<<40 + 1, 1<<40 + 2, 1<<63 + 7}},
	}
	for i := 0; i < 30; i++ {
		var vals []uint64
		for k := rng.IntN(3000); k > 0; k-- {
			switch rng.IntN(3) {
			case 0:
				vals = append(vals, rng.Uint64N(1<<18))
			case 1:
				s := rng.Uint64N(1 << 18)
				vals = append(vals, seq(s, s+rng.Uint64N(300))...)
			default:
				vals = append(vals, rng.Uint64N(1<<34))
			}
		}
		tests = append(tests, struct {
			name string
			vals []uint64
		}{name: "random", vals: vals})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := serialize(t, tc.vals)
			want := roaring64.New()
			want.AddMany(tc.vals)
			rs, card, err := Decode64(b, unbounded, nil)
			require.NoError(t, err)
			require.Equal(t, want.GetCardinality(), card)
			got := expand(rs)
			require.Equal(t, len(want.ToArray()), len(got))
			if len(got) > 0 {
				require.Equal(t, want.ToArray(), got)
			}
			for i := 1; i < len(rs); i++ {
				require.True(t, rs[i-1].End < rs[i].Start, "runs not coalesced", rs[i-1], rs[i])
			}
		})
	}
}

func seq(a, b uint64) []uint64 {
	var out []uint64
	for v := a; v < b; v++ {
		out = append(out, v)
	}
	return out
}

func every(a, b, step uint64) []uint64 {
	var out []uint64
	for v := a; v < b; v += step {
		out = append(out, v)
	}
	return out
}

func le16(v ...uint16) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint16(out, x)
	}
	return out
}

func le32(v ...uint32) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, x)
	}
	return out
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// one64 wraps a 32-bit bitmap as the only one of a 64-bit bitmap with key 0.
func one64(b32 []byte) []byte {
	return cat(binary.LittleEndian.AppendUint64(nil, 1), le32(0), b32)
}

func Test_Decode64_hostile(t *testing.T) {
	// A run-cookie bitmap of one run container (no offset header below 4 containers).
	runs := func(card uint16, rs ...uint16) []byte {
		return cat(le32(cookieRun), []byte{1}, le16(0, card-1), le16(uint16(len(rs)/2)), le16(rs...))
	}
	tests := []struct {
		name string
		b    []byte
		lim  Limits
		want error
		msg  string
	}{
		{name: "empty input", b: nil, lim: unbounded, want: ErrFormat},
		{name: "count past the buffer", b: binary.LittleEndian.AppendUint64(nil, 1<<40), lim: unbounded, want: ErrFormat, msg: "bitmaps in"},
		{name: "bad cookie", b: one64(le32(7, 0)), lim: unbounded, want: ErrFormat, msg: "cookie"},
		{name: "too many containers", b: one64(le32(cookieNoRun, 1<<16+1)), lim: unbounded, want: ErrFormat, msg: "containers"},
		{name: "header past the buffer", b: one64(le32(cookieNoRun, 3)), lim: unbounded, want: ErrFormat, msg: "truncated header"},
		{name: "unsorted containers", b: one64(cat(le32(cookieNoRun, 2), le16(5, 0, 5, 0), le32(0, 0), le16(1), le16(2))), lim: unbounded,
			want: ErrFormat, msg: "not above"},
		{name: "array values unsorted", b: one64(cat(le32(cookieNoRun, 1), le16(0, 1), le32(0), le16(9, 3))), lim: unbounded,
			want: ErrFormat, msg: "not above"},
		{name: "array past the buffer", b: one64(cat(le32(cookieNoRun, 1), le16(0, 99), le32(0), le16(9, 3))), lim: unbounded,
			want: ErrFormat, msg: "past the end"},
		{name: "overlapping runs", b: one64(runs(20, 0, 9, 5, 9)), lim: unbounded, want: ErrFormat, msg: "overlaps"},
		{name: "run past the container", b: one64(runs(10, 65530, 9)), lim: unbounded, want: ErrFormat, msg: "past the container"},
		{name: "cardinality disagrees", b: one64(runs(11, 0, 9)), lim: unbounded, want: ErrFormat, msg: "header says"},
		{name: "truncated bitset", b: one64(cat(le32(cookieNoRun, 1), le16(0, 5000), le32(0), make([]byte, 100))), lim: unbounded,
			want: ErrFormat, msg: "truncated bitset"},
		{name: "trailing bytes", b: append(serialize(t, []uint64{1}), 0), lim: unbounded, want: ErrFormat, msg: "after the last"},
		{name: "unsorted 64-bit keys", b: cat(binary.LittleEndian.AppendUint64(nil, 2), le32(5), le32(cookieNoRun, 0), le32(5), le32(cookieNoRun, 0)),
			lim: unbounded, want: ErrFormat, msg: "key 5 not above"},
		{name: "a vector claiming 2^40 rows", b: serialize(t, []uint64{3, 1 << 40}), lim: Limits{MaxValue: 1000}, want: ErrLimit, msg: "value 1099511627776"},
		{name: "value at the bound", b: serialize(t, []uint64{10}), lim: Limits{MaxValue: 10}, want: ErrLimit},
		{name: "too many runs", b: serialize(t, every(0, 100, 2)), lim: Limits{MaxValue: 1000, MaxRanges: 10}, want: ErrLimit, msg: "runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode64(tc.b, tc.lim, nil)
			require.ErrorIs(t, err, tc.want)
			if tc.msg != "" {
				require.ErrorContains(t, err, tc.msg)
			}
		})
	}
}

func FuzzDecode64(f *testing.F) {
	f.Add(serialize(f, []uint64{0, 9}))
	f.Add(serialize(f, seq(60000, 140000)))
	f.Add(serialize(f, every(0, 65536, 3)))
	f.Add(serialize(f, []uint64{1<<32 + 1, 1 << 40}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		rs, card, err := Decode64(b, Limits{MaxValue: 1 << 48, MaxRanges: 1 << 20}, nil)
		if err != nil {
			return
		}
		// Whatever this decoder accepts the reference reads the same way.
		ref := roaring64.New()
		_, rerr := ref.ReadFrom(bytes.NewReader(b))
		if rerr != nil {
			t.Fatalf("accepted what the reference refuses (%v)", rerr)
		}
		if ref.GetCardinality() != card {
			t.Fatalf("cardinality %d, reference %d", card, ref.GetCardinality())
		}
		var n uint64
		for i, r := range rs {
			if r.Start >= r.End || i > 0 && rs[i-1].End >= r.Start {
				t.Fatalf("runs not sorted and disjoint at %d: %v", i, rs)
			}
			n += r.End - r.Start
			if !ref.Contains(r.Start) || !ref.Contains(r.End-1) {
				t.Fatalf("run %v not in the reference", r)
			}
		}
		if n != card {
			t.Fatalf("runs hold %d values, cardinality %d", n, card)
		}
	})
}
