//go:build !pqscan_lean

package variant

import "github.com/pqscan/pqscan/internal/errf"

// Basic types and primitive type ids of VariantEncoding.md § Encoding types.
const (
	basicPrimitive   = 0
	basicShortString = 1
	basicObject      = 2
	basicArray       = 3

	primNull        = 0
	primTrue        = 1
	primFalse       = 2
	primInt8        = 3
	primInt16       = 4
	primInt32       = 5
	primInt64       = 6
	primDouble      = 7
	primDecimal4    = 8
	primDecimal8    = 9
	primDecimal16   = 10
	primDate        = 11
	primTimestamp   = 12 // micros, adjusted to UTC
	primTimestampNT = 13 // micros, no time zone
	primFloat       = 14
	primBinary      = 15
	primString      = 16
	primTime        = 17 // micros, no time zone
	primTimestampNs = 18 // nanos, adjusted to UTC
	primTimestampNN = 19 // nanos, no time zone
	primUUID        = 20
)

// maxScale is the largest decimal scale the spec allows ("1 byte scale in range [0, 38]").
const maxScale = 38

// primSize is the payload size after the header byte of the fixed-size primitive types; -1
// marks the length-prefixed binary and string, -2 an unknown id.
var primSize = [...]int8{
	primNull: 0, primTrue: 0, primFalse: 0, primInt8: 1, primInt16: 2, primInt32: 4,
	primInt64: 8, primDouble: 8, primDecimal4: 5, primDecimal8: 9, primDecimal16: 17,
	primDate: 4, primTimestamp: 8, primTimestampNT: 8, primFloat: 4, primBinary: -1,
	primString: -1, primTime: 8, primTimestampNs: 8, primTimestampNN: 8, primUUID: 16,
}

// le reads an n-byte (1 to 4) unsigned little-endian integer; the caller checks len(b) >= n.
func le(b []byte, n int) int {
	v := 0
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | int(b[i])
	}
	return v
}

// putLE appends v as an n-byte little-endian integer.
func putLE(dst []byte, v, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// sizeFor is the number of bytes (1 to 4) that holds v.
func sizeFor(v int) int {
	switch {
	case v < 1<<8:
		return 1
	case v < 1<<16:
		return 2
	case v < 1<<24:
		return 3
	}
	return 4
}

// metadata is a parsed metadata header (VariantEncoding.md § Metadata encoding). The
// sorted_strings flag is not trusted: DuckDB 1.5 sets it on dictionaries that are not sorted.
type metadata struct {
	b     []byte
	osz   int // offset_size
	n     int // dictionary_size
	offs  int // position of the first offset
	strs  int // position of the string bytes
	total int // length of the string bytes (the last offset)
}

func parseMetadata(b []byte) (metadata, error) {
	var m metadata
	if len(b) == 0 {
		return m, errf.Errorf("%w: empty", ErrMetadata)
	}
	if v := b[0] & 0x0f; v != 1 {
		return m, errf.Errorf("%w: version %d, want 1", ErrMetadata, int(v))
	}
	m.b, m.osz = b, int(b[0]>>6)+1
	if len(b) < 1+m.osz {
		return m, errf.Errorf("%w: truncated dictionary size", ErrMetadata)
	}
	m.n = le(b[1:], m.osz)
	m.offs = 1 + m.osz
	// (n+1)*osz cannot overflow: n < 2^32 and int is 64 bits on every target (wasm included).
	m.strs = m.offs + (m.n+1)*m.osz
	if m.strs > len(b) {
		return m, errf.Errorf("%w: %d dictionary offsets do not fit in %d bytes", ErrMetadata, m.n+1, len(b))
	}
	m.total = le(b[m.strs-m.osz:], m.osz)
	if m.total > len(b)-m.strs {
		return m, errf.Errorf("%w: string bytes end at %d, beyond %d", ErrMetadata, m.total, len(b)-m.strs)
	}
	return m, nil
}

// key returns dictionary string id, unchecked for UTF-8.
func (m *metadata) key(id int) ([]byte, error) {
	if id < 0 || id >= m.n {
		return nil, errf.Errorf("%w: field id %d beyond the dictionary of %d", ErrMetadata, id, m.n)
	}
	p := m.offs + id*m.osz
	start, end := le(m.b[p:], m.osz), le(m.b[p+m.osz:], m.osz)
	if start > end || end > m.total {
		return nil, errf.Errorf("%w: string %d spans %d..%d of %d bytes", ErrMetadata, id, start, end, m.total)
	}
	return m.b[m.strs+start : m.strs+end], nil
}

// container is the parsed header of an object or array value.
type container struct {
	n      int    // num_elements
	idSize int    // field_id_size (objects)
	offSz  int    // field_offset_size
	ids    []byte // n field ids (objects)
	offs   []byte // n+1 field offsets
	fields []byte // the field bytes, offs[n] long
	size   int    // bytes of the whole value, header included
}

func (c *container) off(i int) int { return le(c.offs[i*c.offSz:], c.offSz) }
func (c *container) id(i int) int  { return le(c.ids[i*c.idSize:], c.idSize) }

// parseContainer reads the header of the object or array at the start of b.
func parseContainer(b []byte) (container, error) {
	var c container
	h := b[0] >> 2
	object := b[0]&3 == basicObject
	c.offSz = int(h&3) + 1
	nsize := 1
	if object {
		c.idSize = int(h>>2&3) + 1
		if h&0x10 != 0 {
			nsize = 4
		}
	} else if h&0x04 != 0 {
		nsize = 4
	}
	if len(b) < 1+nsize {
		return c, errf.Errorf("%w: truncated element count", ErrValue)
	}
	c.n = le(b[1:], nsize)
	p := 1 + nsize
	if c.n*c.idSize > len(b)-p {
		return c, errf.Errorf("%w: %d field ids do not fit in %d bytes", ErrValue, c.n, len(b)-p)
	}
	c.ids = b[p : p+c.n*c.idSize]
	p += c.n * c.idSize
	if (c.n+1)*c.offSz > len(b)-p {
		return c, errf.Errorf("%w: %d offsets do not fit in %d bytes", ErrValue, c.n+1, len(b)-p)
	}
	c.offs = b[p : p+(c.n+1)*c.offSz]
	p += (c.n + 1) * c.offSz
	last := c.off(c.n)
	if last > len(b)-p {
		return c, errf.Errorf("%w: fields end at %d, beyond %d bytes", ErrValue, last, len(b)-p)
	}
	c.fields = b[p : p+last]
	c.size = p + last
	return c, nil
}

// valueSize is the byte length of the value at the start of b, checked against len(b). Objects
// and arrays take their size from the last offset, without visiting their fields.
func valueSize(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errf.Errorf("%w: empty value", ErrValue)
	}
	switch b[0] & 3 {
	case basicShortString:
		n := 1 + int(b[0]>>2)
		if n > len(b) {
			return 0, errf.Errorf("%w: short string of %d bytes in %d", ErrValue, n-1, len(b)-1)
		}
		return n, nil
	case basicObject, basicArray:
		c, err := parseContainer(b)
		return c.size, err
	}
	t := int(b[0] >> 2)
	if t >= len(primSize) {
		return 0, errf.Errorf("%w: unknown primitive type %d", ErrValue, t)
	}
	n := 1 + int(primSize[t])
	if primSize[t] == -1 {
		if len(b) < 5 {
			return 0, errf.Errorf("%w: truncated length", ErrValue)
		}
		n = 5 + le(b[1:], 4)
	}
	if n > len(b) {
		return 0, errf.Errorf("%w: primitive type %d needs %d bytes, has %d", ErrValue, t, n, len(b))
	}
	return n, nil
}
