package codec

// LZ4_RAW pages (one raw LZ4 block, lz4 Block_format.md) and the deprecated LZ4 codec
// (parquet-format Compression.md: Hadoop framing, with a raw-block fallback for files written by
// old parquet-cpp, as Arrow C++'s Lz4HadoopCodec does).

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/errf"
)

// decodeLZ4Raw decodes src as one raw LZ4 block of exactly n bytes.
func decodeLZ4Raw(dst, src []byte, n int) ([]byte, error) {
	out := outBuf(dst, n)
	got, err := decodeLZ4Block(out, src)
	if err != nil {
		return nil, err
	}
	if got != n {
		return nil, errf.Errorf("%w: LZ4 block decoded to %d bytes, header says %d", ErrSizeMismatch, got, n)
	}
	return out, nil
}

// decodeLZ4Hadoop decodes Hadoop-framed LZ4: a sequence of frames, each
// [4-byte BE uncompressed length][4-byte BE compressed length][raw LZ4 block]. If the frames do
// not parse and decode to exactly n bytes with no bytes left over, src is decoded as one raw
// block instead (non_hadoop_lz4_compressed.parquet, old parquet-cpp).
func decodeLZ4Hadoop(dst, src []byte, n int) ([]byte, error) {
	out := outBuf(dst, n)
	if tryHadoopLZ4(out, src) {
		return out, nil
	}
	return decodeLZ4Raw(out, src, n)
}

// tryHadoopLZ4 reports whether src is a valid Hadoop LZ4 stream decoding to exactly len(out)
// bytes, which it writes to out.
func tryHadoopLZ4(out, src []byte) bool {
	const prefix = 8
	d := 0
	for len(src) >= prefix {
		ulen := uint64(binary.BigEndian.Uint32(src))
		clen := uint64(binary.BigEndian.Uint32(src[4:]))
		src = src[prefix:]
		if clen > uint64(len(src)) || ulen > uint64(len(out)-d) {
			return false
		}
		got, err := decodeLZ4Block(out[d:d+int(ulen)], src[:clen])
		if err != nil || got != int(ulen) {
			return false
		}
		d += got
		src = src[clen:]
	}
	return len(src) == 0 && d == len(out)
}

// decodeLZ4Block decodes the raw LZ4 block src into dst and returns the number of bytes
// written. Output beyond len(dst) is an error, so len(dst) is the bound; every literal and
// match copy is bounds-checked and offsets may only reach back into this block's output.
// It allocates nothing on success.
//
// Block format: sequences of token (literal length high nibble, match length-4 low nibble;
// 15 means more length bytes follow, each added, until one is not 255), literals, and a
// 2-byte little-endian match offset. The last sequence ends after its literals.
func decodeLZ4Block(dst, src []byte) (int, error) {
	d, s := 0, 0 // an empty src decodes to 0 bytes, as in pierrec/lz4; callers check the size
	for {
		if s == len(src) {
			// The block ended after a match. The format says the last sequence is literals
			// only, but the data is unambiguous and pierrec/lz4 accepts it, so do we.
			return d, nil
		}
		token := src[s]
		s++

		lit := int(token >> 4)
		if lit == 15 {
			var err error
			if lit, s, err = lz4Length(src, s, lit, len(dst)-d); err != nil {
				return d, err
			}
		}
		if lit > len(src)-s {
			return d, errf.Errorf("%w: LZ4 literal run of %d bytes at input byte %d passes the end of the block", ErrCorrupt, lit, s)
		}
		if lit > len(dst)-d {
			return d, errf.Errorf("%w: LZ4 block decodes to more than %d bytes", ErrSizeMismatch, len(dst))
		}
		d += copy(dst[d:], src[s:s+lit])
		s += lit
		if s == len(src) {
			return d, nil // the last sequence has literals only
		}

		if len(src)-s < 2 {
			return d, errf.Errorf("%w: LZ4 match offset truncated at input byte %d", ErrCorrupt, s)
		}
		off := int(src[s]) | int(src[s+1])<<8
		s += 2
		if off == 0 || off > d {
			return d, errf.Errorf("%w: LZ4 match offset %d at output byte %d", ErrCorrupt, off, d)
		}
		ml := int(token & 15)
		if ml == 15 {
			var err error
			if ml, s, err = lz4Length(src, s, ml, len(dst)-d); err != nil {
				return d, err
			}
		}
		ml += 4
		if ml > len(dst)-d {
			return d, errf.Errorf("%w: LZ4 block decodes to more than %d bytes", ErrSizeMismatch, len(dst))
		}
		// Overlapping matches (off < ml) repeat the last off bytes: copying from the fixed start
		// doubles the available source each round, and each copy's ranges do not overlap.
		start, end := d-off, d+ml
		for d < end {
			d += copy(dst[d:end], dst[start:d])
		}
	}
}

// lz4Length adds the extension bytes of a 15-valued nibble at src[s:] to n. It stops early
// when the input ends or n exceeds limit+4 (more than the output can hold), so the sum cannot
// overflow however many 255 bytes follow.
func lz4Length(src []byte, s, n, limit int) (int, int, error) {
	for {
		if s >= len(src) {
			return n, s, errf.Errorf("%w: LZ4 length truncated at input byte %d", ErrCorrupt, s)
		}
		b := src[s]
		s++
		n += int(b)
		if n > limit+4 {
			return n, s, errf.Errorf("%w: LZ4 block decodes to more than the header's size", ErrSizeMismatch)
		}
		if b != 255 {
			return n, s, nil
		}
	}
}
