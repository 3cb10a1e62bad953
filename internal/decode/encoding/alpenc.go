package encoding

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// AppendALP encodes the little-endian FLOAT (width 4) or DOUBLE (width 8) values in vals as
// one ALP values section (AlpEncoding.md) with vectors of 1<<logSize values, and appends it to
// dst. Each vector takes the (exponent, factor) pair with the fewest exceptions, then the
// narrowest bit width, found by trying them all: the spec's encoding side is informative, and
// this one favours being obviously right over being fast. The engine never writes ALP; tests
// and fixtures use this to make pages the decoder must read back bit for bit.
func AppendALP(dst, vals []byte, width, logSize int) []byte {
	n := len(vals) / width
	size := 1 << logSize
	vectors := (n + size - 1) / size
	dst = append(dst, 0, 0, byte(logSize))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	offs := len(dst)
	dst = append(dst, make([]byte, 4*vectors)...)
	for v := 0; v < vectors; v++ {
		binary.LittleEndian.PutUint32(dst[offs+4*v:], uint32(len(dst)-offs))
		end := min((v+1)*size, n)
		dst = appendALPVector(dst, vals[v*size*width:end*width], width)
	}
	return dst
}

func appendALPVector(dst, vals []byte, width int) []byte {
	n := len(vals) / width
	maxE := 18
	if width == 4 {
		maxE = 10
	}
	enc := make([]int64, n)
	ok := make([]bool, n)
	bestE, bestF, bestExc, bestBW := 0, 0, n+1, 65
	for e := 0; e <= maxE; e++ {
		for f := 0; f <= e; f++ {
			exc := fillALP(enc, ok, vals, width, e, f)
			if exc > bestExc {
				continue
			}
			_, bw := alpFrame(enc, width)
			if exc < bestExc || bw < bestBW {
				bestE, bestF, bestExc, bestBW = e, f, exc, bw
			}
		}
	}
	fillALP(enc, ok, vals, width, bestE, bestF)
	frame, bw := alpFrame(enc, width)
	dst = append(dst, byte(bestE), byte(bestF))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(bestExc))
	if width == 4 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(frame))
	} else {
		dst = binary.LittleEndian.AppendUint64(dst, frame)
	}
	dst = append(dst, byte(bw))
	packed := make([]byte, (n*bw+7)/8)
	for i, x := range enc {
		d := uint64(x) - frame
		if width == 4 {
			d = uint64(uint32(d))
		}
		for b := 0; b < bw; b++ {
			if d>>b&1 != 0 {
				p := i*bw + b
				packed[p>>3] |= 1 << (p & 7)
			}
		}
	}
	dst = append(dst, packed...)
	for i := range ok {
		if !ok[i] {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(i))
		}
	}
	for i := range ok {
		if !ok[i] {
			dst = append(dst, vals[i*width:(i+1)*width]...)
		}
	}
	return dst
}

// fillALP encodes every value with (e, f) and returns the number of exceptions. An exception
// takes the first good value's integer (0 if none), as the spec suggests, so that it does not
// widen the frame.
func fillALP(enc []int64, ok []bool, vals []byte, width, e, f int) int {
	first, have, exc := int64(0), false, 0
	for i := range enc {
		enc[i], ok[i] = alpEncodeOne(vals[i*width:], width, e, f)
		if ok[i] && !have {
			first, have = enc[i], true
		}
	}
	for i := range enc {
		if !ok[i] {
			enc[i] = first
			exc++
		}
	}
	return exc
}

// alpFrame is the frame of reference (the minimum) and the bit width of the deltas.
func alpFrame(enc []int64, width int) (uint64, int) {
	if len(enc) == 0 {
		return 0, 0
	}
	lo, hi := enc[0], enc[0]
	for _, x := range enc {
		lo, hi = min(lo, x), max(hi, x)
	}
	span := uint64(hi) - uint64(lo)
	if width == 4 {
		return uint64(uint32(int32(lo))), bits.Len32(uint32(span))
	}
	return uint64(lo), bits.Len64(span)
}

// alpEncodeOne is the integer for the value at b with (e, f), and whether it decodes back to
// the same bits.
func alpEncodeOne(b []byte, width, e, f int) (int64, bool) {
	if width == 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(b))
		x := math.RoundToEven(float64(float32(v*alpPow10F[e]) * alpPow10NegF[f]))
		if !(x >= math.MinInt32 && x <= math.MaxInt32) { // NaN too
			return 0, false
		}
		r := int32(x)
		back := float32(float32(r)*alpPow10F[f]) * alpPow10NegF[e]
		return int64(r), math.Float32bits(back) == math.Float32bits(v)
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(b))
	x := math.RoundToEven(v * alpPow10[e] * alpPow10Neg[f])
	if !(x >= math.MinInt64 && x < math.MaxInt64) { // NaN too; MaxInt64 rounds up to 2^63
		return 0, false
	}
	r := int64(x)
	back := float64(float64(r)*alpPow10[f]) * alpPow10Neg[e]
	return r, math.Float64bits(back) == math.Float64bits(v)
}
