// Package roaring decodes the portable serialization of Roaring bitmaps (RoaringFormatSpec,
// github.com/RoaringBitmap/RoaringFormatSpec) and its 64-bit extension, the array of 32-bit
// bitmaps keyed by their values' high 32 bits that Delta deletion vectors store
// (PROTOCOL.md "Deletion Vector Format", Delta's RoaringBitmapArray; roaring-rs' RoaringTreemap
// and CRoaring's portable 64-bit format write the same bytes).
//
// It only decodes, into sorted runs of values: a deletion vector is read once and then asked
// which rows of a range it removes. Every length and count is checked against the input before
// anything is allocated, values are checked against the caller's bound (a file's row count), and
// anything the format forbids (unsorted or repeated keys, overlapping runs, a cardinality
// that disagrees with the container) is an error, never a panic. Non-goals: encoding, set
// operations, the non-portable (Java/Go "native") 64-bit formats.
package roaring

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/pqscan/pqscan/internal/errf"
)

// ErrFormat reports bytes that are not a valid portable Roaring bitmap.
var ErrFormat = errors.New("roaring: malformed bitmap")

// ErrLimit reports a bitmap holding a value at or past the caller's bound, or more runs than
// the caller allows.
var ErrLimit = errors.New("roaring: bitmap exceeds its limit")

// Range is the values [Start, End).
type Range struct{ Start, End uint64 }

// Limits bound what a decode may produce.
type Limits struct {
	// MaxValue: every value must be below it (a deletion vector's: the file's row count).
	MaxValue uint64
	// MaxRanges caps the runs returned (memory: 16 bytes each); 0 means no cap beyond what the
	// input's size implies (at most 32768 runs per 8 KiB bitset container).
	MaxRanges int
}

const (
	cookieNoRun = 12346
	cookieRun   = 12347
	// arrayMax is the largest cardinality stored as an array container; above it a bitset.
	arrayMax = 4096
	// noOffsetThreshold: bitmaps with runs and fewer containers have no offset header.
	noOffsetThreshold = 4
)

// Decode64 decodes a 64-bit portable bitmap (a little-endian uint64 count of 32-bit bitmaps,
// each a little-endian uint32 key, its values' high 32 bits, in increasing order, then the
// bitmap) that fills b exactly. It appends the values as sorted, disjoint, non-adjacent runs to
// dst and returns them with the number of values.
func Decode64(b []byte, lim Limits, dst []Range) ([]Range, uint64, error) {
	if len(b) < 8 {
		return dst, 0, errf.Errorf("%w: %d bytes, no bitmap count", ErrFormat, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	// Each bitmap takes at least a key and an empty bitmap's cookie and count (12 bytes).
	if n > uint64(len(b)-8)/12 {
		return dst, 0, errf.Errorf("%w: %d bitmaps in %d bytes", ErrFormat, n, len(b))
	}
	at := 8
	var card uint64
	prev := int64(-1)
	for i := uint64(0); i < n; i++ {
		if len(b)-at < 4 {
			return dst, 0, errf.Errorf("%w: bitmap %d: truncated key", ErrFormat, i)
		}
		key := binary.LittleEndian.Uint32(b[at:])
		if int64(key) <= prev {
			return dst, 0, errf.Errorf("%w: bitmap %d: key %d not above the previous one", ErrFormat, i, key)
		}
		prev = int64(key)
		at += 4
		var c uint64
		var used int
		var err error
		dst, c, used, err = decode32(b[at:], uint64(key)<<32, lim, dst)
		if err != nil {
			return dst, 0, errf.Errorf("bitmap %d (key %d): %w", i, key, err)
		}
		at += used
		card += c
	}
	if at != len(b) {
		return dst, 0, errf.Errorf("%w: %d bytes after the last bitmap", ErrFormat, len(b)-at)
	}
	return dst, card, nil
}

// Decode32 decodes one 32-bit portable bitmap at the start of b, its values offset by base,
// appending runs to dst as Decode64 does; used is the bytes it took.
func Decode32(b []byte, lim Limits, dst []Range) (out []Range, card uint64, used int, err error) {
	return decode32(b, 0, lim, dst)
}

func decode32(b []byte, base uint64, lim Limits, dst []Range) ([]Range, uint64, int, error) {
	r := reader{b: b}
	cookie := r.u32()
	var n int
	var runs []byte
	switch {
	case cookie == cookieNoRun:
		c := r.u32()
		if c > 1<<16 {
			return dst, 0, 0, errf.Errorf("%w: %d containers", ErrFormat, c)
		}
		n = int(c)
	case cookie&0xFFFF == cookieRun:
		n = int(cookie>>16) + 1
		runs = r.bytes((n + 7) / 8)
	default:
		if r.bad {
			return dst, 0, 0, errf.Errorf("%w: truncated cookie", ErrFormat)
		}
		return dst, 0, 0, errf.Errorf("%w: cookie %#x", ErrFormat, cookie)
	}
	header := r.bytes(4 * n)
	if runs == nil || n >= noOffsetThreshold {
		r.bytes(4 * n) // the offsets: redundant with the sizes, not needed to read in order
	}
	if r.bad {
		return dst, 0, 0, errf.Errorf("%w: truncated header of %d containers", ErrFormat, n)
	}
	var total uint64
	prev := -1
	for i := 0; i < n; i++ {
		key := int(binary.LittleEndian.Uint16(header[4*i:]))
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if key <= prev {
			return dst, 0, 0, errf.Errorf("%w: container %d: key %d not above the previous one", ErrFormat, i, key)
		}
		prev = key
		hi := base | uint64(key)<<16
		start := len(dst)
		var got int
		var err error
		switch {
		case runs != nil && runs[i/8]&(1<<(i%8)) != 0:
			dst, got, err = r.runContainer(hi, dst)
		case card <= arrayMax:
			dst, got, err = r.arrayContainer(hi, card, dst)
		default:
			dst, got, err = r.bitsetContainer(hi, dst)
		}
		if err != nil {
			return dst, 0, 0, errf.Errorf("container %d (key %d): %w", i, key, err)
		}
		if got != card {
			return dst, 0, 0, errf.Errorf("%w: container %d (key %d) holds %d values, its header says %d", ErrFormat, i, key, got, card)
		}
		if last := dst[len(dst)-1].End; last > lim.MaxValue {
			return dst, 0, 0, errf.Errorf("%w: value %d, the bound is %d", ErrLimit, last-1, lim.MaxValue)
		}
		if lim.MaxRanges > 0 && len(dst) > lim.MaxRanges {
			return dst, 0, 0, errf.Errorf("%w: more than %d runs", ErrLimit, lim.MaxRanges)
		}
		dst = coalesce(dst, start)
		total += uint64(card)
	}
	return dst, total, r.at, nil
}

// reader walks b; a read past its end sets bad and returns zeros.
type reader struct {
	b   []byte
	at  int
	bad bool
}

func (r *reader) bytes(n int) []byte {
	if r.bad || n < 0 || n > len(r.b)-r.at {
		r.bad = true
		return nil
	}
	out := r.b[r.at : r.at+n : r.at+n]
	r.at += n
	return out
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// add appends [s, e) to dst, checking that it starts after the runs already there.
func add(dst []Range, start int, s, e uint64) ([]Range, error) {
	if len(dst) > start && dst[len(dst)-1].End > s {
		return dst, errf.Errorf("%w: values out of order at %d", ErrFormat, s)
	}
	if len(dst) > start && dst[len(dst)-1].End == s {
		dst[len(dst)-1].End = e
		return dst, nil
	}
	return append(dst, Range{s, e}), nil
}

// runContainer reads a run container: a count, then (start, length-1) pairs, sorted and
// disjoint, within the container's 2^16 values.
func (r *reader) runContainer(hi uint64, dst []Range) ([]Range, int, error) {
	nb := r.bytes(2)
	if nb == nil {
		return dst, 0, errf.Errorf("%w: truncated run count", ErrFormat)
	}
	nr := int(binary.LittleEndian.Uint16(nb))
	body := r.bytes(4 * nr)
	if body == nil {
		return dst, 0, errf.Errorf("%w: %d runs past the end", ErrFormat, nr)
	}
	start, got := len(dst), 0
	for k := 0; k < nr; k++ {
		s := uint64(binary.LittleEndian.Uint16(body[4*k:]))
		e := s + uint64(binary.LittleEndian.Uint16(body[4*k+2:])) + 1
		if e > 1<<16 {
			return dst, 0, errf.Errorf("%w: run %d ends past the container", ErrFormat, k)
		}
		if k > 0 && hi+s <= dst[len(dst)-1].End {
			// Adjacent runs are merged by writers; touching or overlapping ones are malformed.
			return dst, 0, errf.Errorf("%w: run %d overlaps or touches the previous one", ErrFormat, k)
		}
		var err error
		if dst, err = add(dst, start, hi+s, hi+e); err != nil {
			return dst, 0, err
		}
		got += int(e - s)
	}
	return dst, got, nil
}

// arrayContainer reads card strictly increasing 16-bit values.
func (r *reader) arrayContainer(hi uint64, card int, dst []Range) ([]Range, int, error) {
	body := r.bytes(2 * card)
	if body == nil {
		return dst, 0, errf.Errorf("%w: %d values past the end", ErrFormat, card)
	}
	start := len(dst)
	for k := 0; k < card; k++ {
		v := hi + uint64(binary.LittleEndian.Uint16(body[2*k:]))
		if k > 0 && v < dst[len(dst)-1].End {
			return dst, 0, errf.Errorf("%w: array value %d not above the previous one", ErrFormat, v)
		}
		var err error
		if dst, err = add(dst, start, v, v+1); err != nil {
			return dst, 0, err
		}
	}
	return dst, card, nil
}

// bitsetContainer reads 2^16 bits as 1024 little-endian words and appends their runs.
func (r *reader) bitsetContainer(hi uint64, dst []Range) ([]Range, int, error) {
	body := r.bytes(8192)
	if body == nil {
		return dst, 0, errf.Errorf("%w: truncated bitset", ErrFormat)
	}
	got := 0
	inRun := false
	for w := 0; w < 1024; w++ {
		word := binary.LittleEndian.Uint64(body[8*w:])
		got += bits.OnesCount64(word)
		for b := 0; b < 64; {
			if inRun {
				// Length of the run of ones from bit b.
				n := bits.TrailingZeros64(^(word >> b))
				if b+n >= 64 {
					dst[len(dst)-1].End = hi + uint64(64*w+64)
					break
				}
				b += n
				dst[len(dst)-1].End = hi + uint64(64*w+b)
				inRun = false
				continue
			}
			n := bits.TrailingZeros64(word >> b)
			if b+n >= 64 {
				break
			}
			b += n
			dst = append(dst, Range{hi + uint64(64*w+b), hi + uint64(64*w+b+1)})
			inRun = true
		}
	}
	return dst, got, nil
}

// coalesce merges the run at dst[start] into the one before it when they touch (a container
// continuing its predecessor's run across a 2^16 boundary).
func coalesce(dst []Range, start int) []Range {
	if start == 0 || start >= len(dst) || dst[start-1].End != dst[start].Start {
		return dst
	}
	dst[start-1].End = dst[start].End
	return append(dst[:start], dst[start+1:]...)
}
