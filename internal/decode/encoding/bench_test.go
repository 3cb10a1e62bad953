package encoding

import (
	"math/rand/v2"
	"testing"
)

// Benchmarks for the hot kernels; b.SetBytes is the encoded input size, so MB/s is input
// throughput. Compare widths to see the 64-bit-load group kernels at work.

func BenchmarkHybrid(b *testing.B) {
	for _, bc := range []struct {
		name  string
		width int
		runs  bool
	}{
		{name: "bitpacked/w1", width: 1},
		{name: "bitpacked/w3", width: 3},
		{name: "bitpacked/w8", width: 8},
		{name: "bitpacked/w12", width: 12},
		{name: "bitpacked/w15", width: 15},
		{name: "bitpacked/w16", width: 16},
		{name: "bitpacked/w20", width: 20},
		{name: "bitpacked/w32", width: 32},
		{name: "mixed/w1", width: 1, runs: true},
		{name: "mixed/w10", width: 10, runs: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			const n = 64 * 1024
			var values []uint64
			if bc.runs {
				values = randomLevels(r, n, bc.width)
			} else {
				values = make([]uint64, n)
				for i := range values {
					values[i] = r.Uint64() & (1<<bc.width - 1)
				}
			}
			src := encodeBitPackedOnly(values, bc.width)
			if bc.runs {
				src = encodeHybrid(r, values, bc.width)
			}
			dst := make([]int32, 0, n)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				dst, _, err = Hybrid(dst[:0], src, bc.width, n)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encodeBitPackedOnly encodes values as one bit-packed run (no RLE), the worst case.
func encodeBitPackedOnly(values []uint64, width int) []byte {
	groups := (len(values) + 7) / 8
	out := appendUvarint(nil, uint64(groups)<<1|1)
	var w bitWriter
	for i := 0; i < groups*8; i++ {
		var v uint64
		if i < len(values) {
			v = values[i]
		}
		w.put(v, width)
	}
	return append(out, w.buf...)
}

func BenchmarkPlainByteArray(b *testing.B) {
	for _, bc := range []struct {
		name   string
		maxLen int
	}{{"short", 8}, {"medium", 40}, {"long", 400}} {
		b.Run(bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 2))
			values := randomByteArrays(r, 16*1024, bc.maxLen)
			src := encodePlainByteArray(values)
			offs := make([]int32, 0, len(values)+1)
			data := make([]byte, 0, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				offs, data, _, err = PlainByteArray(offs[:0], data[:0], src, len(values))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDeltaInt64(b *testing.B) {
	for _, bc := range []struct {
		name string
		gen  func(r *rand.Rand, prev int64) int64
	}{
		{"sorted", func(r *rand.Rand, prev int64) int64 { return prev + int64(r.IntN(1000)) }},
		{"random32", func(r *rand.Rand, prev int64) int64 { return int64(r.Int32()) }},
		{"random64", func(r *rand.Rand, prev int64) int64 { return int64(r.Uint64()) }},
		{"constant", func(r *rand.Rand, prev int64) int64 { return 7 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 3))
			values := make([]int64, 64*1024)
			for i := 1; i < len(values); i++ {
				values[i] = bc.gen(r, values[i-1])
			}
			src := encodeDelta(values, 128, 4, false)
			dst := make([]int64, 0, len(values))
			// Constant data encodes to almost nothing; report output bytes so MB/s compares.
			b.SetBytes(int64(8 * len(values)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				dst, _, err = DeltaInt64(dst[:0], src, len(values))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkByteStreamSplit(b *testing.B) {
	for _, width := range []int{2, 4, 8, 16} {
		b.Run("w"+string(rune('0'+width/10))+string(rune('0'+width%10)), func(b *testing.B) {
			src := make([]byte, 64*1024*width)
			for i := range src {
				src[i] = byte(i * 31)
			}
			n := len(src) / width
			dst := make([]byte, 0, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				dst, err = ByteStreamSplit(dst[:0], src, n, width)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Test_zeroAllocs guards the kernels: with a dst of sufficient capacity, decoding allocates
// nothing.
func Test_zeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	levels := randomLevels(r, 4096, 5)
	hsrc := encodeHybrid(r, levels, 5)
	hdst := make([]int32, 0, 4096)
	values := make([]int64, 4096)
	for i := range values {
		values[i] = int64(r.Uint64() >> 20)
	}
	dsrc := encodeDelta(values, 128, 4, false)
	ddst := make([]int64, 0, 4096)
	arrays := randomByteArrays(r, 1000, 20)
	psrc := encodePlainByteArray(arrays)
	bsrc := encodeDeltaByteArray(arrays)
	offs := make([]int32, 0, 2*len(arrays)+1)
	data := make([]byte, 0, 1<<16)
	bm := make([]byte, 0, 1024)
	bools := encodeHybrid(r, randomLevels(r, 4096, 1), 1)
	bsrcBool := append([]byte{byte(len(bools)), byte(len(bools) >> 8), 0, 0}, bools...)
	tests := []struct {
		name string
		fn   func() error
	}{
		{name: "Hybrid", fn: func() (err error) { hdst, _, err = Hybrid(hdst[:0], hsrc, 5, len(levels)); return }},
		{name: "DeltaInt64", fn: func() (err error) { ddst, _, err = DeltaInt64(ddst[:0], dsrc, len(values)); return }},
		{name: "PlainByteArray", fn: func() (err error) {
			offs, data, _, err = PlainByteArray(offs[:0], data[:0], psrc, len(arrays))
			return
		}},
		{name: "DeltaByteArray", fn: func() (err error) {
			offs, data, _, err = DeltaByteArray(offs[:0], data[:0], bsrc, len(arrays), 1<<16)
			return
		}},
		{name: "RLEBool", fn: func() (err error) { bm, _, err = RLEBool(bm[:0], 0, bsrcBool, 4096); return }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fn(); err != nil { // warm up and check it decodes
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(20, func() { _ = tc.fn() }); a != 0 {
				t.Fatalf("%v allocations per run", a)
			}
		})
	}
	if len(hdst) != len(levels) || len(ddst) != len(values) || len(bm) != 512 {
		t.Fatalf("decoders failed: %d %d %d", len(hdst), len(ddst), len(bm))
	}
}

// BenchmarkDictIndices: 64Ki dictionary indices of 10 bits, bit-packed: "checked" with a
// dictionary of 1000 entries (decoding + validation), "fits" with 1024 (no index of the width
// can be out of range, so decoding only).
func BenchmarkDictIndices(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, width = 64 * 1024, 10
	values := make([]uint64, n)
	for i := range values {
		values[i] = r.Uint64() % 1000
	}
	src := append([]byte{width}, encodeBitPackedOnly(values, width)...)
	dst := make([]int32, 0, n)
	for _, c := range []struct {
		name    string
		dictLen int
	}{{"checked", 1000}, {"fits", 1 << width}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = DictIndices(dst[:0], src, n, c.dictLen); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
