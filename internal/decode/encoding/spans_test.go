package encoding

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// The selective kernels must return exactly what the full decoders return at the spans'
// positions: each case decodes everything, picks the spans, and compares.

func pick[T any](all []T, spans []Span) []T {
	var out []T
	for _, s := range spans {
		out = append(out, all[s.From:s.To]...)
	}
	return out
}

// randomSpans cuts n positions into kept and skipped runs of 1..maxRun (short and long).
func randomSpans(r *rand.Rand, n, maxRun int) []Span {
	var out []Span
	for i := 0; i < n; {
		l := 1 + r.IntN(maxRun)
		if r.IntN(2) == 0 {
			out = append(out, Span{i, min(n, i+l)})
			i += l + 1 + r.IntN(maxRun) // keep a gap: spans never touch
			continue
		}
		i += l
	}
	return out
}

func Test_DictIndicesSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		name  string
		width int
		n     int
		spans []Span
	}{
		{name: "none", width: 5, n: 100, spans: nil},
		{name: "all", width: 5, n: 100, spans: []Span{{0, 100}}},
		{name: "one value mid-group", width: 3, n: 64, spans: []Span{{13, 14}}},
		{name: "group edges", width: 7, n: 64, spans: []Span{{7, 9}, {15, 17}, {63, 64}}},
		{name: "width 1", width: 1, n: 200, spans: []Span{{1, 2}, {100, 180}}},
		{name: "width 20", width: 20, n: 50, spans: []Span{{0, 3}, {40, 50}}},
		{name: "width 0", width: 0, n: 50, spans: []Span{{0, 3}, {40, 50}}},
		{name: "random short runs", width: 10, n: 4000, spans: randomSpans(r, 4000, 3)},
		{name: "random long runs", width: 12, n: 4000, spans: randomSpans(r, 4000, 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := randomLevels(r, tc.n, tc.width)
			src := append([]byte{byte(tc.width)}, encodeHybrid(r, values, tc.width)...)
			dictLen := 1 << tc.width
			all, err := DictIndices(nil, src, tc.n, dictLen)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DictIndicesSpans([]int32{-1}, src, tc.n, dictLen, tc.spans)
			if err != nil {
				t.Fatal(err)
			}
			if want := append([]int32{-1}, pick(all, tc.spans)...); !slices.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
}

func Test_spansErrors(t *testing.T) {
	src := append([]byte{4}, encodeHybrid(rand.New(rand.NewPCG(1, 2)), make([]uint64, 16), 4)...)
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{name: "overlapping spans", err: ErrArgument, fn: func() error {
			_, err := DictIndicesSpans(nil, src, 16, 16, []Span{{0, 5}, {4, 6}})
			return err
		}},
		{name: "span past n", err: ErrArgument, fn: func() error {
			_, err := PlainFixedSpans(nil, make([]byte, 40), 10, 4, []Span{{8, 11}})
			return err
		}},
		{name: "empty span", err: ErrArgument, fn: func() error {
			_, _, err := PlainByteArraySpans(nil, nil, make([]byte, 40), 10, []Span{{3, 3}})
			return err
		}},
		{name: "dictionary too small for a selected index", err: ErrDictIndex, fn: func() error {
			s := append([]byte{4}, appendUvarint(nil, 16<<1)...)
			_, err := DictIndicesSpans(nil, append(s, 9), 16, 5, []Span{{2, 3}})
			return err
		}},
		{name: "page short of values", err: ErrTooFewValues, fn: func() error {
			_, err := DictIndicesSpans(nil, src, 40, 16, []Span{{0, 1}})
			return err
		}},
		{name: "fixed page short of values", err: ErrTooFewValues, fn: func() error {
			_, err := PlainFixedSpans(nil, make([]byte, 39), 10, 4, []Span{{0, 1}})
			return err
		}},
		{name: "byte array length past the page, after the last span", err: ErrLength, fn: func() error {
			b := encodePlainByteArray([][]byte{[]byte("ab"), []byte("c")})
			b[6] = 200
			_, _, err := PlainByteArraySpans(nil, nil, b, 2, []Span{{0, 1}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fn(); !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
		})
	}
}

func Test_PlainSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	arrays := randomByteArrays(r, 500, 12)
	bsrc := encodePlainByteArray(arrays)
	fsrc := make([]byte, 500*8)
	for i := range fsrc {
		fsrc[i] = byte(r.Uint32())
	}
	for _, tc := range []struct {
		name  string
		spans []Span
	}{
		{name: "none"},
		{name: "first and last", spans: []Span{{0, 1}, {499, 500}}},
		{name: "short runs", spans: randomSpans(r, 500, 2)},
		{name: "long runs", spans: randomSpans(r, 500, 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			offs, data, _, err := PlainByteArray(nil, nil, bsrc, len(arrays))
			if err != nil {
				t.Fatal(err)
			}
			goff, gdata, err := PlainByteArraySpans(nil, nil, bsrc, len(arrays), tc.spans)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]byte
			for _, s := range tc.spans {
				for i := s.From; i < s.To; i++ {
					want = append(want, data[offs[i]:offs[i+1]])
				}
			}
			if len(goff) != len(want)+1 {
				t.Fatalf("%d offsets for %d values", len(goff), len(want))
			}
			for i, w := range want {
				if g := gdata[goff[i]:goff[i+1]]; string(g) != string(w) {
					t.Fatalf("value %d: %q, want %q", i, g, w)
				}
			}
			got, err := PlainFixedSpans(nil, fsrc, 500, 8, tc.spans)
			if err != nil {
				t.Fatal(err)
			}
			var wantF []byte
			for _, s := range tc.spans {
				wantF = append(wantF, fsrc[s.From*8:s.To*8]...)
			}
			if !slices.Equal(got, wantF) {
				t.Fatal("fixed values differ")
			}
		})
	}
}

// Test_spansZeroAllocs: with reused buffers the skip kernels allocate nothing.
func Test_spansZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	values := randomLevels(r, 8192, 11)
	hsrc := append([]byte{11}, encodeHybrid(r, values, 11)...)
	spans := randomSpans(r, 8192, 40)
	arrays := randomByteArrays(r, 1000, 20)
	psrc := encodePlainByteArray(arrays)
	pspans := randomSpans(r, 1000, 30)
	fsrc := make([]byte, 8192*4)
	idx := make([]int32, 0, 8192)
	offs := make([]int32, 0, 1001)
	data := make([]byte, 0, 1<<15)
	fixed := make([]byte, 0, len(fsrc))
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{name: "DictIndicesSpans", fn: func() (err error) { idx, err = DictIndicesSpans(idx[:0], hsrc, 8192, 1<<11, spans); return }},
		{name: "PlainByteArraySpans", fn: func() (err error) {
			offs, data, err = PlainByteArraySpans(offs[:0], data[:0], psrc, 1000, pspans)
			return
		}},
		{name: "PlainFixedSpans", fn: func() (err error) { fixed, err = PlainFixedSpans(fixed[:0], fsrc, 8192, 4, spans); return }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fn(); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(20, func() { _ = tc.fn() }); a != 0 {
				t.Fatalf("%v allocations per run", a)
			}
		})
	}
	if len(idx) == 0 || len(offs) < 2 {
		t.Fatal("kernels decoded nothing")
	}
}

// FuzzSpans: on any input the selective kernels either fail or return exactly what the full
// decoders return at the spans (an input the full decoder rejects only for a skipped value
// may succeed: skipped values are never used).
func FuzzSpans(f *testing.F) {
	f.Add([]byte{3, 5<<1 | 1, 0b11100100, 0x55, 0xaa}, uint16(20), uint16(8), uint64(1))
	f.Add([]byte{2, 1, 0, 0, 0, 'a', 3, 0, 0, 0, 'b', 'c', 'd'}, uint16(2), uint16(4), uint64(7))
	f.Fuzz(func(t *testing.T, data []byte, n, dictLen uint16, seed uint64) {
		spans := randomSpans(rand.New(rand.NewPCG(seed, 1)), int(n), 25)
		if got, err := DictIndicesSpans(nil, data, int(n), int(dictLen), spans); err == nil {
			if all, err := DictIndices(nil, data, int(n), int(dictLen)); err == nil && !slices.Equal(got, pick(all, spans)) {
				t.Fatalf("indices %v, want %v", got, pick(all, spans))
			}
		}
		if got, err := PlainFixedSpans(nil, data, int(n), 3, spans); err == nil {
			all, _, err := PlainFixed(nil, data, int(n), 3)
			if err != nil {
				t.Fatalf("full decode fails: %v", err)
			}
			var want []byte
			for _, s := range spans {
				want = append(want, all[3*s.From:3*s.To]...)
			}
			if !slices.Equal(got, want) {
				t.Fatal("fixed values differ")
			}
		}
		if goff, gdata, err := PlainByteArraySpans(nil, nil, data, int(n), spans); err == nil {
			offs, all, _, err := PlainByteArray(nil, nil, data, int(n))
			if err != nil {
				t.Fatalf("full decode fails: %v", err)
			}
			k := 0
			for _, s := range spans {
				for i := s.From; i < s.To; i, k = i+1, k+1 {
					if string(gdata[goff[k]:goff[k+1]]) != string(all[offs[i]:offs[i+1]]) {
						t.Fatalf("value %d differs", i)
					}
				}
			}
		}
	})
}
