package encoding

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Fuzz targets, one per decoder. Each runs the decoder on the raw fuzz input (it must not
// panic, and a success must satisfy the output contract) and, where an encoder exists, a
// round trip of values derived from the same input through the test encoder.
// Run one with: go test -run=^$ -fuzz=FuzzHybrid -fuzztime=20s ./decode/encoding

// valuesFrom derives up to max values of width bits from data, little-endian per value.
func valuesFrom(data []byte, width, max int) []uint64 {
	vb := (width + 7) / 8
	var out []uint64
	for len(data) >= vb && len(out) < max {
		var v uint64
		for k := vb - 1; k >= 0; k-- {
			v = v<<8 | uint64(data[k])
		}
		if width < 64 {
			v &= 1<<width - 1
		}
		out = append(out, v)
		data = data[vb:]
	}
	return out
}

// arraysFrom splits data into byte arrays: a length byte (mod 17) then that many bytes.
func arraysFrom(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		l := min(int(data[0])%17, len(data)-1)
		out = append(out, data[1:1+l])
		data = data[1+l:]
	}
	return out
}

func FuzzHybrid(f *testing.F) {
	f.Add([]byte{1<<1 | 1, 0b10001000, 0b11000110, 0b11111010}, uint8(3), uint16(8))
	f.Add([]byte{5 << 1, 3}, uint8(2), uint16(5))
	f.Add([]byte{2 << 1, 0x34, 0x12, 1<<1 | 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, uint8(13), uint16(10))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, uint8(1), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, bw uint8, n uint16) {
		width := int(bw % 33)
		got, consumed, err := Hybrid(nil, data, width, int(n))
		if err == nil && (len(got) != int(n) || consumed < 0 || consumed > len(data)) {
			t.Fatalf("len %d consumed %d for n %d, %d bytes", len(got), consumed, n, len(data))
		}
		if err == nil && width > 0 {
			for _, v := range got {
				if width < 32 && uint32(v)>>width != 0 {
					t.Fatalf("value %d wider than %d bits", v, width)
				}
			}
		}
		if width <= 15 {
			// The deprecated BIT_PACKED levels over the same bytes: no panic, exact size.
			bp, bc, berr := BitPackedLevels(nil, data, width, int(n))
			if berr == nil && (len(bp) != int(n) || bc != (int(n)*width+7)/8 || bc > len(data)) {
				t.Fatalf("BIT_PACKED: %d levels, %d bytes for n %d width %d", len(bp), bc, n, width)
			}
			lv, lc, lerr := HybridLevels(nil, data, width, int(n))
			if (lerr == nil) != (err == nil) || lc != consumed {
				t.Fatalf("levels disagree: %v/%v, %d/%d", lerr, err, lc, consumed)
			}
			for i := range lv {
				if int32(lv[i]) != got[i] {
					t.Fatalf("levels value %d: %d vs %d", i, lv[i], got[i])
				}
			}
		}
		if width == 0 {
			return
		}
		values := valuesFrom(data, width, 2000)
		src := encodeHybrid(rand.New(rand.NewPCG(uint64(n), 1)), values, width)
		rt, rc, err := Hybrid(nil, src, width, len(values))
		if err != nil || rc != len(src) {
			t.Fatalf("round trip: %v, consumed %d of %d", err, rc, len(src))
		}
		for i, v := range values {
			if uint32(rt[i]) != uint32(v) {
				t.Fatalf("round trip value %d: want %d got %d", i, v, rt[i])
			}
		}
	})
}

func FuzzDictIndices(f *testing.F) {
	f.Add([]byte{2, 1<<1 | 1, 0b11100100, 0}, uint16(4), uint16(4))
	f.Add([]byte{0}, uint16(3), uint16(1))
	f.Add([]byte{32, 1 << 1, 0, 0, 0, 0x80}, uint16(1), uint16(10))
	f.Fuzz(func(t *testing.T, data []byte, n, dictLen uint16) {
		got, err := DictIndices(nil, data, int(n), int(dictLen))
		if err != nil {
			return
		}
		if len(got) != int(n) {
			t.Fatalf("len %d for n %d", len(got), n)
		}
		for _, v := range got {
			if v < 0 || int(v) >= int(dictLen) {
				t.Fatalf("index %d with dictionary of %d", v, dictLen)
			}
		}
	})
}

func FuzzBool(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 10 << 1, 1}, uint16(10), uint8(0))
	f.Add([]byte{5, 0, 0, 0, 1<<1 | 1, 0b10100101, 4 << 1, 1, 0xEE}, uint16(12), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, off uint8) {
		bitOff := int(off % 64)
		prefix := bytes.Repeat([]byte{0xFF}, (bitOff+7)/8)
		// RLE booleans must agree with the generic hybrid at width 1.
		bm, consumed, err := RLEBool(append([]byte(nil), prefix...), bitOff, data, int(n))
		body, _, perr := LengthPrefixed(data)
		var want []int32
		var herr error = perr
		if perr == nil {
			want, _, herr = Hybrid(nil, body, 1, int(n))
		}
		if (err == nil) != (herr == nil) {
			t.Fatalf("RLEBool err %v, Hybrid err %v", err, herr)
		}
		if err == nil {
			checkBits(t, bm, bitOff, want)
			if consumed != 4+len(body) {
				t.Fatalf("consumed %d, want %d", consumed, 4+len(body))
			}
		}
		// PLAIN booleans are the bits of data.
		bm, consumed, err = PlainBool(append([]byte(nil), prefix...), bitOff, data, int(n))
		if (err == nil) != (len(data)*8 >= int(n)) {
			t.Fatalf("PlainBool err %v with %d bytes for %d values", err, len(data), n)
		}
		if err == nil {
			want = want[:0]
			for i := 0; i < int(n); i++ {
				want = append(want, int32(data[i/8]>>(i%8)&1))
			}
			checkBits(t, bm, bitOff, want)
			if consumed != (int(n)+7)/8 {
				t.Fatalf("consumed %d for %d values", consumed, n)
			}
		}
	})
}

// checkBits checks a bitmap produced after a prefix of bitOff set bits.
func checkBits(t *testing.T, bm []byte, bitOff int, want []int32) {
	t.Helper()
	if len(bm) != (bitOff+len(want)+7)/8 {
		t.Fatalf("bitmap of %d bytes for %d+%d bits", len(bm), bitOff, len(want))
	}
	for i := 0; i < bitOff; i++ {
		if bm[i/8]>>(i%8)&1 != 1 {
			t.Fatalf("prefix bit %d changed", i)
		}
	}
	for i, v := range want {
		j := bitOff + i
		if int32(bm[j/8]>>(j%8)&1) != v {
			t.Fatalf("bit %d: want %d", i, v)
		}
	}
	if e := bitOff + len(want); e%8 != 0 && bm[e/8]>>(e%8) != 0 {
		t.Fatalf("bits past the end are set")
	}
}

func FuzzDeltaInt64(f *testing.F) {
	f.Add(encodeDelta([]int64{1, 2, 3, -4, 1 << 62}, 128, 4, false), uint16(5))
	f.Add(encodeDelta([]int64{7, 7, 7}, 256, 8, false), uint16(3))
	f.Add(deltaHeaderBytes(128, 4, 1<<40, 0), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		got, consumed, err := DeltaInt64(nil, data, int(n))
		got32, consumed32, err32 := DeltaInt32(nil, data, int(n))
		if (err == nil) != (err32 == nil) || consumed != consumed32 {
			t.Fatalf("int32/int64 disagree: %v/%v, %d/%d", err, err32, consumed, consumed32)
		}
		if err == nil {
			if len(got) != int(n) || consumed > len(data) {
				t.Fatalf("len %d consumed %d for n %d, %d bytes", len(got), consumed, n, len(data))
			}
			for i := range got {
				if int32(got[i]) != got32[i] {
					t.Fatalf("value %d: int64 %d, int32 %d", i, got[i], got32[i])
				}
			}
		}
		values := make([]int64, 0, len(data)/8)
		for _, v := range valuesFrom(data, 64, 2000) {
			values = append(values, int64(v))
		}
		layouts := [][2]int{{128, 4}, {128, 1}, {256, 8}, {512, 16}}
		l := layouts[int(n)%len(layouts)]
		src := encodeDelta(values, l[0], l[1], false)
		rt, rc, err := DeltaInt64(nil, src, len(values))
		if err != nil || rc != len(src) {
			t.Fatalf("round trip: %v, consumed %d of %d", err, rc, len(src))
		}
		for i := range values {
			if rt[i] != values[i] {
				t.Fatalf("round trip value %d: want %d got %d", i, values[i], rt[i])
			}
		}
	})
}

func FuzzDeltaLengthByteArray(f *testing.F) {
	f.Add(encodeDeltaLength([][]byte{[]byte("Hello"), []byte("World"), {}, []byte("x")}), uint16(4))
	f.Add(cat(lens(-1, 3), []byte("abc")), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		offs, out, consumed, err := DeltaLengthByteArray(nil, nil, data, int(n))
		if err == nil {
			checkOffsets(t, offs, out, int(n))
			if consumed > len(data) || len(out) > len(data) {
				t.Fatalf("consumed %d, %d data bytes from %d", consumed, len(out), len(data))
			}
		}
		values := arraysFrom(data)
		src := encodeDeltaLength(values)
		offs, out, consumed, err = DeltaLengthByteArray(nil, nil, src, len(values))
		if err != nil || consumed != len(src) {
			t.Fatalf("round trip: %v, consumed %d of %d", err, consumed, len(src))
		}
		checkValues(t, values, offs, out)
	})
}

func FuzzDeltaByteArray(f *testing.F) {
	f.Add(cat(lens(0, 2, 0, 3), lens(4, 2, 6, 5), []byte("axislebabbleyhood")), uint16(4))
	f.Add(cat(lens(0, 4, 4, 4), lens(4, 0, 0, 0), []byte("abcd")), uint16(4))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		const maxData = 1 << 16
		offs, out, consumed, err := DeltaByteArray(nil, nil, data, int(n), maxData)
		if err == nil {
			checkOffsets(t, offs, out, int(n))
			if consumed > len(data) || len(out) > maxData {
				t.Fatalf("consumed %d of %d, %d data bytes", consumed, len(data), len(out))
			}
		}
		values := arraysFrom(data)
		src := encodeDeltaByteArray(values)
		offs, out, consumed, err = DeltaByteArray(nil, nil, src, len(values), maxData)
		if err != nil || consumed != len(src) {
			t.Fatalf("round trip: %v, consumed %d of %d", err, consumed, len(src))
		}
		checkValues(t, values, offs, out)
	})
}

func FuzzPlainByteArray(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 1, 0, 0, 0, 'x'}, uint16(3))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 'a'}, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		offs, out, consumed, err := PlainByteArray(nil, nil, data, int(n))
		if err == nil {
			checkOffsets(t, offs, out, int(n))
			if consumed != 4*int(n)+len(out) || consumed > len(data) {
				t.Fatalf("consumed %d for %d values, %d data bytes, %d input", consumed, n, len(out), len(data))
			}
		}
		values := arraysFrom(data)
		src := encodePlainByteArray(values)
		offs, out, consumed, err = PlainByteArray(nil, nil, src, len(values))
		if err != nil || consumed != len(src) {
			t.Fatalf("round trip: %v, consumed %d of %d", err, consumed, len(src))
		}
		checkValues(t, values, offs, out)
	})
}

// FuzzByteStreamSplit also covers PlainFixed, the other fixed-width decoder.
func FuzzByteStreamSplit(f *testing.F) {
	f.Add([]byte{0xA0, 0xB0, 0xA1, 0xB1, 0xA2, 0xB2, 0xA3, 0xB3}, uint16(2), uint8(4))
	f.Add([]byte{1, 2, 3, 4, 5, 6}, uint16(2), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, w uint8) {
		width := 1 + int(w%17)
		got, err := ByteStreamSplit(nil, data, int(n), width)
		if err == nil && len(got) != int(n)*width {
			t.Fatalf("%d bytes for %d values of %d", len(got), n, width)
		}
		// PLAIN fixed-width values are a bounds-checked copy of the input.
		fixed, consumed, err := PlainFixed(nil, data, int(n), width)
		if (err == nil) != (int(n)*width <= len(data)) || (err == nil && (consumed != int(n)*width || !bytes.Equal(fixed, data[:consumed]))) {
			t.Fatalf("PlainFixed: %v, consumed %d for %d values of %d from %d bytes", err, consumed, n, width, len(data))
		}
		plain := data[:len(data)/width*width]
		rt, err := ByteStreamSplit(nil, encodeBSS(plain, width), len(plain)/width, width)
		if err != nil || !bytes.Equal(rt, plain) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// checkOffsets checks the Arrow offsets contract for a fresh decode of n values.
func checkOffsets(t *testing.T, offs []int32, data []byte, n int) {
	t.Helper()
	if len(offs) != n+1 || offs[0] != 0 || int(offs[n]) != len(data) {
		t.Fatalf("%d offsets for %d values, data %d", len(offs), n, len(data))
	}
	for i := 0; i < n; i++ {
		if offs[i] > offs[i+1] {
			t.Fatalf("offsets decrease at %d", i)
		}
	}
}

func checkValues(t *testing.T, want [][]byte, offs []int32, data []byte) {
	t.Helper()
	checkOffsets(t, offs, data, len(want))
	for i, w := range want {
		if !bytes.Equal(w, data[offs[i]:offs[i+1]]) {
			t.Fatalf("value %d: want %q got %q", i, w, data[offs[i]:offs[i+1]])
		}
	}
}
