//go:build !pqscan_lean

package encoding

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// ALP (parquet-format AlpEncoding.md, ALP = 10): FLOAT and DOUBLE values as decimals. A page is
// a 7-byte header (compression_mode 0, integer_encoding 0, log_vector_size in [3, 15],
// num_elements int32), an array of uint32 vector offsets (relative to the array's start) and
// the vectors. A vector is AlpInfo (exponent e, factor f, num_exceptions uint16), ForInfo (the
// frame of reference, int32 for FLOAT or int64 for DOUBLE, and a bit width), the deltas from
// the frame bit-packed LSB-first, then the exceptions' uint16 positions and their values'
// exact bits. A value is (delta + frame) * 10^f * 10^-e, two multiplications in the column's
// own precision with correctly rounded constants, so that every reader reproduces the bits
// the writer checked; exceptions then overwrite their positions.

const alpHeaderSize = 7

// ALPSupported says this build decodes ALP. The lean wasm module leaves the decoder out
// (alp_lean.go): a file whose column chunks list ALP fails at its footer there, and the host
// reads it with the full module.
const ALPSupported = true

// ALP appends n ALP-encoded values of width bytes (4: FLOAT, 8: DOUBLE) from src to dst as
// little-endian bytes. src is the page's whole values section. num_elements must equal n (the
// page's non-null values), every offset must point where the previous vector ends (the spec
// allows no padding), and every length, width, exponent, factor and position is checked;
// malformed input returns ErrALP, ErrTruncated or ErrBitWidth wrapped with what was wrong.
// It returns no byte count: a page holds one ALP stream and nothing after it.
func ALP(dst []byte, src []byte, n, width int) ([]byte, error) {
	if n < 0 || (width != 4 && width != 8) {
		return dst, errf.Errorf("%w: n=%d width=%d", ErrArgument, n, width)
	}
	if len(src) < alpHeaderSize {
		return dst, errf.Errorf("%w: ALP header needs %d bytes, have %d", ErrTruncated, alpHeaderSize, len(src))
	}
	if src[0] != 0 || src[1] != 0 {
		return dst, errf.Errorf("%w: compression mode %d, integer encoding %d (only 0, 0 are defined)", ErrALP, src[0], src[1])
	}
	logSize := int(src[2])
	if logSize < 3 || logSize > 15 {
		return dst, errf.Errorf("%w: log_vector_size %d outside [3, 15]", ErrALP, logSize)
	}
	total := int64(int32(binary.LittleEndian.Uint32(src[3:])))
	if total != int64(n) {
		return dst, errf.Errorf("%w: %d elements in the page header, %d non-null values in the page", ErrALP, total, n)
	}
	size := 1 << logSize
	vectors := (n + size - 1) / size
	body := src[alpHeaderSize:]
	if int64(vectors)*4 > int64(len(body)) {
		return dst, errf.Errorf("%w: %d vector offsets need %d bytes, have %d", ErrTruncated, vectors, vectors*4, len(body))
	}
	base := len(dst)
	dst = slices.Grow(dst, n*width)[:base+n*width]
	out := dst[base:]
	deltas := make([]uint64, min(size, n))
	next := vectors * 4 // where the first vector must start, then each next one
	for v := 0; v < vectors; v++ {
		off := int(binary.LittleEndian.Uint32(body[4*v:]))
		if off != next {
			return dst[:base], errf.Errorf("%w: vector %d at offset %d, where vector %d ends at %d", ErrALP, v, off, v-1, next)
		}
		count := min(size, n-v*size)
		used, err := alpVector(out[v*size*width:(v*size+count)*width], body[off:], count, width, deltas)
		if err != nil {
			return dst[:base], errf.Errorf("vector %d: %w", v, err)
		}
		next = off + used
	}
	return dst, nil
}

// alpVector decodes one vector of count values from src into out (count*width bytes) and
// returns the bytes it used. deltas is scratch of at least count entries.
func alpVector(out, src []byte, count, width int, deltas []uint64) (int, error) {
	forSize := width + 1
	if len(src) < 4+forSize {
		return 0, errf.Errorf("%w: vector header needs %d bytes, have %d", ErrTruncated, 4+forSize, len(src))
	}
	e, f, exc := int(src[0]), int(src[1]), int(binary.LittleEndian.Uint16(src[2:]))
	maxE := 18
	if width == 4 {
		maxE = 10
	}
	if e > maxE || f > e {
		return 0, errf.Errorf("%w: exponent %d and factor %d (want factor <= exponent <= %d)", ErrALP, e, f, maxE)
	}
	if exc > count {
		return 0, errf.Errorf("%w: %d exceptions in a vector of %d values", ErrALP, exc, count)
	}
	var frame uint64
	if width == 4 {
		frame = uint64(binary.LittleEndian.Uint32(src[4:]))
	} else {
		frame = binary.LittleEndian.Uint64(src[4:])
	}
	bw := int(src[4+width])
	if bw > 8*width {
		return 0, errf.Errorf("%w: %d bits for %d-byte values", ErrBitWidth, bw, width)
	}
	pos := 4 + forSize
	packed := (count*bw + 7) / 8
	need := int64(pos) + int64(packed) + int64(exc)*int64(2+width)
	if need > int64(len(src)) {
		return 0, errf.Errorf("%w: vector of %d values at %d bits with %d exceptions needs %d bytes, have %d", ErrTruncated, count, bw, exc, need, len(src))
	}
	d := deltas[:count]
	unpackALP(d, src[pos:pos+packed], bw)
	pos += packed
	if width == 4 {
		pf, pe := alpPow10F[f], alpPow10NegF[e]
		for i, x := range d {
			// The frame is added with int32 wrapping, as the writer subtracted it.
			enc := int32(uint32(x) + uint32(frame))
			v := float32(float32(enc)*pf) * pe
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
	} else {
		pf, pe := alpPow10[f], alpPow10Neg[e]
		for i, x := range d {
			enc := int64(x + frame)
			v := float64(float64(enc)*pf) * pe
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		}
	}
	vals := pos + 2*exc
	for j := 0; j < exc; j++ {
		p := int(binary.LittleEndian.Uint16(src[pos+2*j:]))
		if p >= count {
			return 0, errf.Errorf("%w: exception at position %d of a vector of %d values", ErrALP, p, count)
		}
		copy(out[p*width:(p+1)*width], src[vals+j*width:vals+(j+1)*width])
	}
	return vals + exc*width, nil
}

// unpackALP unpacks len(d) values of bw bits (0..64), packed LSB-first, from src
// (ceil(len(d)*bw/8) bytes), 8 at a time; groups near the end read a zero-padded copy, and the
// last is cut to len(d).
func unpackALP(d []uint64, src []byte, bw int) {
	if bw == 0 {
		clear(d)
		return
	}
	var grp [8]uint64
	var buf [72]byte
	for i, off := 0, 0; i < len(d); i, off = i+8, off+bw {
		var g []byte
		if off+bw+8 > len(src) {
			g = padded(&buf, src, off)
		} else {
			g = src[off:]
		}
		unpack8x64(&grp, g, uint(bw))
		copy(d[i:], grp[:])
	}
}
