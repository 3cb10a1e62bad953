//go:build !pqscan_lean

package variant

import (
	"bytes"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
)

// This file renders VariantEncoding.md values (§ Value encoding, § Encoding types) as JSON.

// MaxDepth bounds how deeply arrays and objects may nest in a value AppendJSON renders.
const MaxDepth = 1000

// MaxJSON bounds the JSON text of one value. A valid value can render far larger than its
// bytes (a one-byte field id names a metadata key of any length), so the cap is what keeps a
// small hostile value from asking for gigabytes (256 MiB: far beyond any sane document, well
// within the wasm module's memory).
const MaxJSON = 1 << 28

// AppendJSON appends the JSON text of one variant value to dst, following DuckDB's
// CAST(variant AS JSON) (the package comment lists the conventions).
//
// Every byte string is either rendered or refused with an error wrapping ErrMetadata,
// ErrValue, ErrTooDeep or ErrTooLarge; on error dst is returned truncated to its original
// length. Object keys come out sorted by name (bytewise), which is the order the spec requires
// values to store them in; an object stored in another order (DuckDB 1.5 writes some) is
// rendered sorted too, as DuckDB renders it, and a key repeated in an object is an error.
// Strings, keys included, must be valid UTF-8 (an error otherwise, not a replacement
// character: the spec requires UTF-8, and a silent replacement would make two different values
// render alike).
//
// Children that overlap are refused: each value's header and primitive bytes are charged
// against len(value), which a tree of disjoint children can never exceed, so offsets that
// point many fields at one shared child (a few bytes expanding exponentially) fail early.
func AppendJSON(dst []byte, metadata, value []byte) ([]byte, error) {
	m, err := parseMetadata(metadata)
	if err != nil {
		return dst, err
	}
	r := renderer{m: m, out: dst, start: len(dst), left: len(value)}
	if err := r.value(value, 0); err != nil {
		return dst, err
	}
	return r.out, nil
}

type renderer struct {
	m     metadata
	out   []byte
	start int
	left  int // bytes of value not yet charged; see AppendJSON
}

func (r *renderer) charge(n int) error {
	r.left -= n
	if r.left < 0 {
		return errf.Errorf("%w: children overlap", ErrValue)
	}
	if len(r.out)-r.start > MaxJSON {
		return errf.Errorf("%w: JSON text beyond %d bytes", ErrTooLarge, MaxJSON)
	}
	return nil
}

func (r *renderer) value(b []byte, depth int) error {
	if len(b) == 0 {
		return errf.Errorf("%w: empty value", ErrValue)
	}
	switch b[0] & 3 {
	case basicShortString:
		n := int(b[0] >> 2)
		if 1+n > len(b) {
			return errf.Errorf("%w: short string of %d bytes in %d", ErrValue, n, len(b)-1)
		}
		if err := r.charge(1 + n); err != nil {
			return err
		}
		return r.str(b[1 : 1+n])
	case basicObject:
		return r.object(b, depth)
	case basicArray:
		return r.array(b, depth)
	}
	n, err := valueSize(b)
	if err != nil {
		return err
	}
	if err := r.charge(n); err != nil {
		return err
	}
	r.out, err = appendPrimitive(r.out, b[:n])
	return err
}

func (r *renderer) str(s []byte) error {
	var err error
	r.out, err = appendString(r.out, s)
	return err
}

// open parses the header of the object or array b at nesting depth and charges it.
func (r *renderer) open(b []byte, depth int) (container, error) {
	if depth >= MaxDepth {
		return container{}, errf.Errorf("%w: more than %d levels", ErrTooDeep, MaxDepth)
	}
	c, err := parseContainer(b)
	if err != nil {
		return c, err
	}
	return c, r.charge(c.size - len(c.fields))
}

func (r *renderer) object(b []byte, depth int) error {
	c, err := r.open(b, depth)
	if err != nil {
		return err
	}
	// Keys are rendered sorted by name: the order the spec requires them to be stored in.
	// DuckDB 1.5 writes them in another order ("é" before "w") and renders them sorted, so an
	// unsorted object is sorted here (a scratch allocation on that path only).
	var order []int
	var prev []byte
	for i := 0; i < c.n; i++ {
		k, err := r.m.key(c.id(i))
		if err != nil {
			return err
		}
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			order = make([]int, c.n)
			for j := range order {
				order[j] = j
			}
			keyOf := func(j int) []byte { k, _ := r.m.key(c.id(j)); return k }
			slices.SortFunc(order, func(a, b int) int { return bytes.Compare(keyOf(a), keyOf(b)) })
			break
		}
		prev = k
	}
	r.out = append(r.out, '{')
	prev = nil
	for n := 0; n < c.n; n++ {
		i := n
		if order != nil {
			i = order[n]
		}
		k, err := r.m.key(c.id(i))
		if err != nil {
			return err
		}
		if n > 0 {
			if bytes.Equal(prev, k) {
				return errf.Errorf("%w: object key %q repeated", ErrValue, k)
			}
			r.out = append(r.out, ',')
		}
		prev = k
		if err := r.str(k); err != nil {
			return err
		}
		r.out = append(r.out, ':')
		off := c.off(i)
		if off >= len(c.fields) {
			return errf.Errorf("%w: field offset %d beyond %d bytes", ErrValue, off, len(c.fields))
		}
		if err := r.value(c.fields[off:], depth+1); err != nil {
			return err
		}
	}
	r.out = append(r.out, '}')
	return nil
}

func (r *renderer) array(b []byte, depth int) error {
	c, err := r.open(b, depth)
	if err != nil {
		return err
	}
	r.out = append(r.out, '[')
	for i := 0; i < c.n; i++ {
		if i > 0 {
			r.out = append(r.out, ',')
		}
		off := c.off(i)
		if off >= len(c.fields) {
			return errf.Errorf("%w: element offset %d beyond %d bytes", ErrValue, off, len(c.fields))
		}
		if err := r.value(c.fields[off:], depth+1); err != nil {
			return err
		}
	}
	r.out = append(r.out, ']')
	return nil
}

// appendPrimitive renders the primitive b (exactly its valueSize bytes).
func appendPrimitive(dst []byte, b []byte) ([]byte, error) {
	p := b[1:]
	switch t := int(b[0] >> 2); t {
	case primNull:
		return append(dst, "null"...), nil
	case primTrue:
		return append(dst, "true"...), nil
	case primFalse:
		return append(dst, "false"...), nil
	case primInt8:
		return appendInt(dst, int64(int8(p[0]))), nil
	case primInt16:
		return appendInt(dst, int64(int16(le(p, 2)))), nil
	case primInt32:
		return appendInt(dst, int64(int32(le(p, 4)))), nil
	case primInt64:
		return appendInt(dst, int64(le64(p))), nil
	case primDouble:
		return appendDouble(dst, math.Float64frombits(le64(p))), nil
	case primFloat:
		return appendDouble(dst, float64(math.Float32frombits(uint32(le(p, 4))))), nil
	case primDecimal4, primDecimal8, primDecimal16:
		scale := int(p[0])
		if scale > maxScale {
			return dst, errf.Errorf("%w: decimal scale %d beyond %d", ErrValue, scale, maxScale)
		}
		var hi, lo uint64
		switch t {
		case primDecimal4:
			lo = uint64(int64(int32(le(p[1:], 4))))
			hi = uint64(int64(lo) >> 63)
		case primDecimal8:
			lo = le64(p[1:])
			hi = uint64(int64(lo) >> 63)
		default:
			lo, hi = le64(p[1:]), le64(p[9:])
		}
		return appendDecimal(dst, hi, lo, scale), nil
	case primDate:
		dst = append(dst, '"')
		dst = appendDate(dst, int64(int32(le(p, 4))))
		return append(dst, '"'), nil
	case primTimestamp, primTimestampNT, primTimestampNs, primTimestampNN:
		dst = append(dst, '"')
		dst = appendTimestamp(dst, int64(le64(p)), t == primTimestampNs || t == primTimestampNN,
			t == primTimestamp || t == primTimestampNs)
		return append(dst, '"'), nil
	case primTime:
		us := int64(le64(p))
		if us < 0 || us > 86400_000000 {
			return dst, errf.Errorf("%w: time of day %d microseconds out of range", ErrValue, us)
		}
		dst = append(dst, '"')
		dst = appendClock(dst, us, 6)
		return append(dst, '"'), nil
	case primBinary:
		return appendBlob(dst, p[4:]), nil
	case primString:
		return appendString(dst, p[4:])
	case primUUID:
		return appendUUID(dst, p), nil
	}
	return dst, errf.Errorf("%w: unknown primitive type %d", ErrValue, int(b[0]>>2))
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

const hexUpper = "0123456789ABCDEF"

// appendString appends s as a JSON string the way DuckDB (yyjson) escapes it: '"', '\\' and
// the C0 controls only (\b \f \n \r \t by name, the rest as \u00XX); DEL, '/' and all
// non-ASCII characters stay as they are. Invalid UTF-8 is an error.
func appendString(dst []byte, s []byte) ([]byte, error) {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return dst, errf.Errorf("%w: invalid UTF-8 at byte %d of a string", ErrValue, i)
			}
			dst = append(dst, s[i:i+n]...)
			i += n
			continue
		}
		i++
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexUpper[c>>4], hexUpper[c&15])
		}
	}
	return append(dst, '"'), nil
}

// appendBlob renders binary as DuckDB's BLOB text inside a JSON string: printable ASCII other
// than the quotes and backslash as is, every other byte as \xHH (its backslash JSON-escaped).
func appendBlob(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		if c >= 0x20 && c <= 0x7e && c != '"' && c != '\'' && c != '\\' {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '\\', '\\', 'x', hexUpper[c>>4], hexUpper[c&15])
	}
	return append(dst, '"')
}

// appendUUID renders 16 big-endian bytes as a lower-case 8-4-4-4-12 string.
func appendUUID(dst []byte, b []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i, c := range b[:16] {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hex[c>>4], hex[c&15])
	}
	return append(dst, '"')
}
