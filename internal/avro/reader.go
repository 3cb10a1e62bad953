// Package avro reads Avro object container files (Avro specification 1.11, "Object
// Container Files"): the header (magic, metadata map, sync marker), blocks with the null,
// deflate, snappy or zstandard codec, and the values decoded generically against the writer's
// schema from the header. It is what Iceberg's manifest lists and manifests need, and no more:
// no schema resolution against a reader's schema (callers look fields up by name, since
// writers reorder, rename records and make fields nullable), no writing, no bzip2 or xz.
//
// Values decode as: null nil, boolean bool, int and long int64, float float32, double
// float64, bytes and fixed []byte, string string, enum its symbol (string), record
// map[string]any by field name, array []any, map map[string]any, union the chosen branch's
// value. Logical types decode as their underlying type.
//
// Every count and length read from the file is checked against the bytes left and against
// the caller's memory cap before anything is allocated; bad input is an error, never a panic.
package avro

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"

	"github.com/klauspost/compress/flate"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/errf"
)

var magic = []byte{'O', 'b', 'j', 1}

// File is a decoded object container file.
type File struct {
	// Schema is the writer's schema (avro.schema).
	Schema *Schema
	// Meta is the header's metadata map (avro.schema, avro.codec and the writer's own keys,
	// such as Iceberg's "partition-spec" or "format-version").
	Meta map[string][]byte
	// Values are the file's objects in order.
	Values []any
}

// Decode reads a whole container file held in b. maxBytes caps the decompressed size of its
// blocks and so the memory the values take (0: 64 MiB).
func Decode(b []byte, maxBytes int64) (*File, error) {
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	d := &decoder{b: b, budget: maxBytes}
	if len(b) < 4 || !bytes.Equal(b[:4], magic) {
		return nil, errf.Errorf("%w: no Avro magic", ErrMalformed)
	}
	d.off = 4
	meta, err := d.metaMap()
	if err != nil {
		return nil, errf.Errorf("header: %w", err)
	}
	sync, err := d.take(16)
	if err != nil {
		return nil, errf.Errorf("header sync marker: %w", err)
	}
	js, ok := meta["avro.schema"]
	if !ok {
		return nil, errf.Errorf("%w: no avro.schema in the header", ErrSchema)
	}
	sch, err := ParseSchema(js)
	if err != nil {
		return nil, err
	}
	codec := string(meta["avro.codec"])
	switch codec {
	case "", "null", "deflate", "snappy", "zstandard":
	default:
		return nil, errf.Errorf("%w: codec %q", ErrUnsupported, codec)
	}
	f := &File{Schema: sch, Meta: meta}
	least := minSize(sch, 0)
	for d.off < len(d.b) {
		at := d.off
		count, err := d.long()
		if err != nil {
			return nil, errf.Errorf("block at %d: %w", at, err)
		}
		size, err := d.long()
		if err != nil {
			return nil, errf.Errorf("block at %d: %w", at, err)
		}
		if count < 0 || size < 0 || size > int64(len(d.b)-d.off) {
			return nil, errf.Errorf("%w: block at %d: %d objects in %d bytes, %d left", ErrMalformed, at, count, size, len(d.b)-d.off)
		}
		data := d.b[d.off : d.off+int(size)]
		d.off += int(size)
		if data, err = d.decompress(codec, data); err != nil {
			return nil, errf.Errorf("block at %d: %w", at, err)
		}
		if err := checkCount(count, least, len(data)); err != nil {
			return nil, errf.Errorf("block at %d: %w", at, err)
		}
		if err := d.spend(count * slotBytes); err != nil {
			return nil, err
		}
		bd := &decoder{b: data, budget: d.budget}
		for i := int64(0); i < count; i++ {
			v, err := bd.value(sch, 0)
			if err != nil {
				return nil, errf.Errorf("block at %d, object %d: %w", at, i, err)
			}
			f.Values = append(f.Values, v)
		}
		d.budget = bd.budget
		if bd.off != len(bd.b) {
			return nil, errf.Errorf("%w: block at %d: %d bytes after its %d objects", ErrMalformed, at, len(bd.b)-bd.off, count)
		}
		m, err := d.take(16)
		if err != nil {
			return nil, errf.Errorf("block at %d sync marker: %w", at, err)
		}
		if !bytes.Equal(m, sync) {
			return nil, errf.Errorf("%w: block at %d: sync marker differs from the header's", ErrMalformed, at)
		}
	}
	return f, nil
}

// checkCount bounds a count of values that each take at least least bytes by the n bytes
// they are read from; values of no bytes (nulls) by a fixed cap instead.
func checkCount(count int64, least, n int) error {
	if least > 0 && count > int64(n/least) || least == 0 && count > 1<<20 {
		return errf.Errorf("%w: %d values in %d bytes", ErrMalformed, count, n)
	}
	return nil
}

// slotBytes is what one decoded value is charged against the memory cap beyond its bytes
// (an interface slot): values of no bytes (nulls) still cost memory.
const slotBytes = 16

// decoder reads values from b at off; budget is what the caller's memory cap has left.
type decoder struct {
	b      []byte
	off    int
	budget int64
}

func (d *decoder) spend(n int64) error {
	if d.budget -= n; d.budget < 0 {
		return errf.Errorf("%w: more than the memory cap decoded", ErrLimit)
	}
	return nil
}

// decompress is a block's data decoded by the file's codec (the Avro specification's
// "Required Codecs" and, of the optional ones, those Iceberg writers use for manifests:
// Java's write.avro.compression-codec snappy and zstd, PyIceberg's, iceberg-rust's zstd),
// charged against the memory cap.
func (d *decoder) decompress(name string, data []byte) ([]byte, error) {
	var out []byte
	var err error
	switch name {
	case "deflate":
		return d.inflate(data)
	case "snappy":
		// A raw SNAPPY block, then the big-endian CRC-32 of the decoded bytes.
		if len(data) < 4 {
			return nil, errf.Errorf("%w: a snappy block of %d bytes has no checksum", ErrMalformed, len(data))
		}
		sum := binary.BigEndian.Uint32(data[len(data)-4:])
		if out, err = codec.DecompressSnappyBlock(data[:len(data)-4], int(min(max(d.budget, 0), math.MaxInt32))); err != nil {
			return nil, blockError("snappy", err)
		}
		if crc32.ChecksumIEEE(out) != sum {
			return nil, errf.Errorf("%w: snappy: the block's checksum does not match its bytes", ErrMalformed)
		}
	case "zstandard":
		if out, err = codec.DecompressZstdStream(data, int(min(max(d.budget, 0), math.MaxInt32))); err != nil {
			return nil, blockError("zstandard", err)
		}
	default: // null
		return data, d.spend(int64(len(data)))
	}
	return out, d.spend(int64(len(out)))
}

// blockError is a codec's failure on a block: past the memory cap (ErrLimit), else bytes the
// codec cannot decode (ErrMalformed).
func blockError(name string, err error) error {
	if errors.Is(err, codec.ErrTooLarge) {
		return errf.Errorf("%w: %s: more than the memory cap decoded", ErrLimit, name)
	}
	return errf.Errorf("%w: %s: %w", ErrMalformed, name, err)
}

func (d *decoder) inflate(data []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(data))
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, d.budget+1))
	if err != nil {
		return nil, errf.Errorf("%w: deflate: %v", ErrMalformed, err)
	}
	return out, d.spend(int64(len(out)))
}

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.off {
		return nil, errf.Errorf("%w: %d bytes at %d, %d left", ErrMalformed, n, d.off, len(d.b)-d.off)
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s, nil
}

// long reads a zig-zag varint (int and long alike).
func (d *decoder) long() (int64, error) {
	u, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		return 0, errf.Errorf("%w: bad varint at %d", ErrMalformed, d.off)
	}
	d.off += n
	return int64(u>>1) ^ -int64(u&1), nil
}

// length reads a byte length and checks it against the bytes left.
func (d *decoder) length() (int, error) {
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > int64(len(d.b)-d.off) {
		return 0, errf.Errorf("%w: length %d at %d, %d bytes left", ErrMalformed, n, d.off, len(d.b)-d.off)
	}
	return int(n), nil
}

// metaMap reads the header's map of bytes.
func (d *decoder) metaMap() (map[string][]byte, error) {
	m := map[string][]byte{}
	err := d.blocks(2, func() error {
		k, err := d.length()
		if err != nil {
			return err
		}
		key := string(d.b[d.off : d.off+k])
		d.off += k
		n, err := d.length()
		if err != nil {
			return err
		}
		m[key] = bytes.Clone(d.b[d.off : d.off+n])
		d.off += n
		return nil
	})
	return m, err
}

// blocks reads the blocks of an array or map (a count, negative when a byte size follows,
// items, until a count of 0), calling item for each; least is an item's fewest bytes.
func (d *decoder) blocks(least int, item func() error) error {
	for {
		count, err := d.long()
		if err != nil {
			return err
		}
		if count == 0 {
			return nil
		}
		if count < 0 {
			if count == math.MinInt64 {
				return errf.Errorf("%w: block count at %d", ErrMalformed, d.off)
			}
			count = -count
			if _, err := d.long(); err != nil { // the block's byte size: not needed
				return err
			}
		}
		if err := checkCount(count, least, len(d.b)-d.off); err != nil {
			return err
		}
		if err := d.spend(count * slotBytes); err != nil {
			return err
		}
		for i := int64(0); i < count; i++ {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

func (d *decoder) value(s *Schema, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, errf.Errorf("%w: values nested deeper than %d", ErrLimit, MaxDepth)
	}
	switch s.Kind {
	case Null:
		return nil, nil
	case Boolean:
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case Int, Long:
		return d.long()
	case Float:
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case Double:
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case Bytes, String:
		n, err := d.length()
		if err != nil {
			return nil, err
		}
		b, _ := d.take(n)
		if s.Kind == String {
			return string(b), nil
		}
		return bytes.Clone(b), nil
	case Fixed:
		b, err := d.take(s.Size)
		if err != nil {
			return nil, err
		}
		return bytes.Clone(b), nil
	case Enum:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(s.Symbols)) {
			return nil, errf.Errorf("%w: enum %s index %d of %d", ErrMalformed, s.Name, i, len(s.Symbols))
		}
		return s.Symbols[i], nil
	case Union:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(s.Branches)) {
			return nil, errf.Errorf("%w: union branch %d of %d", ErrMalformed, i, len(s.Branches))
		}
		return d.value(s.Branches[i], depth+1)
	case Record:
		m := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			v, err := d.value(f.Type, depth+1)
			if err != nil {
				return nil, errf.Errorf("%s: %w", f.Name, err)
			}
			m[f.Name] = v
		}
		return m, nil
	case Array:
		out := []any{}
		err := d.blocks(minSize(s.Items, depth), func() error {
			v, err := d.value(s.Items, depth+1)
			out = append(out, v)
			return err
		})
		return out, err
	case Map:
		out := map[string]any{}
		err := d.blocks(1+minSize(s.Items, depth), func() error {
			n, err := d.length()
			if err != nil {
				return err
			}
			k, _ := d.take(n)
			v, err := d.value(s.Items, depth+1)
			out[string(k)] = v
			return err
		})
		return out, err
	}
	return nil, errf.Errorf("%w: type kind %d", ErrSchema, int(s.Kind))
}
