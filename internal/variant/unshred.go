//go:build !pqscan_lean

package variant

import (
	"bytes"
	"math"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
)

// Unshred turns the physical struct array of a VARIANT group (type typ: fields named metadata,
// value and typed_value in any order, value and/or typed_value possibly absent) into its
// unshredded form (VariantShredding.md § Reconstructing a Shredded Variant): per row, the
// metadata bytes and a value that encodes the whole variant, both Binary arrays of group.Len
// rows sharing the group's validity bitmap. typed_value is re-encoded as the Variant type its
// Arrow type stands for and merged with value for partially shredded objects; object fields
// are written with ids sorted by name and the smallest offset and id sizes. A row whose group
// is valid but whose value and typed_value are both null ("missing") becomes Variant null
// (00), as the spec requires of a missing value in a required context; so do missing array
// elements, which the spec forbids writers to produce.
//
// The spec requires every field name of a variant, shredded or not, to be in the metadata
// ("All field names of a Variant, whether shredded or not, must be present in the
// metadata"). A row whose metadata lacks the name of a shredded field it uses is still read:
// its metadata is rewritten with the missing names appended (existing ids stay valid) and the
// sorted_strings flag cleared.
//
// A field of a partially shredded object's value that is also a shredded field is ignored:
// the shredded column holds the field, or says it is missing. The spec forbids writing both
// and lets readers assume it is not done; Iceberg's reader and parquet-testing's
// shredded_variant cases (43, 125) take the shredded column, so pqscan does too.
//
// Errors (wrapping ErrShredding, ErrValue, ErrMetadata, ErrTooLarge or arrowipc's errors),
// never panics, for: arrays that do not match typ; a typed_value whose Arrow type stands for
// no type of the shredding spec's table (unsigned integers, float16, decimal256, time and
// timestamp units other than those listed, fixed-size binary other than a 16-byte
// arrow.uuid, maps, intervals, null); value and typed_value both set where typed_value is not
// an object; a partially shredded value that is not an object, or that repeats a key;
// metadata or object headers that do not parse. Nested values are copied, not checked:
// AppendJSON checks them when it renders. Dictionary-encoded children are read through their
// dictionary. Decimals take the Variant decimal type their precision implies (decimal4 up to
// 9 digits, decimal8 up to 18, decimal16 beyond).
//
// The arrays are first checked with arrowipc.Validate (one pass over offsets and bitmaps).
// Input without typed_value is then returned as is (the same buffers) unless some valid row
// has a null value, which becomes 00.
func Unshred(typ arrowipc.DataType, group *arrowipc.Array) (metadata, value *arrowipc.Array, err error) {
	if typ.ID != arrowipc.Struct || typ.Dictionary {
		return nil, nil, errf.Errorf("%w: a VARIANT group must be a struct", ErrShredding)
	}
	sch := &arrowipc.Schema{Fields: []arrowipc.Field{{Name: "variant", Type: typ, Nullable: true}}}
	if group == nil {
		return nil, nil, errf.Errorf("%w: nil array", ErrShredding)
	}
	if err := arrowipc.Validate(sch, group.Len, []*arrowipc.Array{group}); err != nil {
		return nil, nil, err
	}
	mi := fieldIndex(typ.Fields, "metadata")
	if mi < 0 {
		return nil, nil, errf.Errorf("%w: no metadata field", ErrShredding)
	}
	md := leaf{a: group.Children[mi], t: typ.Fields[mi].Type}
	if md.t.ID != arrowipc.Binary {
		return nil, nil, errf.Errorf("%w: metadata must be binary", ErrShredding)
	}
	top, err := compilePair(typ, group, true)
	if err != nil {
		return nil, nil, err
	}
	n := group.Len
	groupValid := func(i int) bool { return valid(group, i) }
	for i := 0; i < n && md.a.NullCount > 0; i++ {
		if groupValid(i) && !md.valid(i) {
			return nil, nil, errf.Errorf("%w: row %d has no metadata", ErrShredding, i)
		}
	}

	// The cheap path: nothing shredded, and every valid row has a value.
	if top.typed == nil && top.value != nil && !top.value.t.Dictionary {
		cheap := true
		for i := 0; i < n && top.value.a.NullCount > 0; i++ {
			if groupValid(i) && !top.value.valid(i) {
				cheap = false
				break
			}
		}
		if cheap {
			out := *top.value.a
			out.Validity, out.NullCount = group.Validity, group.NullCount
			m, err := metadataArray(md, group, nil)
			return m, &out, err
		}
	}

	e := encoder{offs: make([]int32, 1, n+1)}
	var rewritten []rewrite
	var prevMeta []byte
	for i := 0; i < n; i++ {
		if !groupValid(i) {
			e.offs = append(e.offs, int32(len(e.buf)))
			continue
		}
		raw := md.bytes(i)
		if prevMeta == nil || !bytes.Equal(raw, prevMeta) {
			e.meta.reset(raw)
			prevMeta = raw
		}
		ok, err := e.pair(&top, i)
		if err != nil {
			return nil, nil, errf.Errorf("row %d: %w", i, err)
		}
		if !ok {
			e.buf = append(e.buf, primNull<<2)
		}
		if len(e.buf) > math.MaxInt32 {
			return nil, nil, errf.Errorf("%w: unshredded values beyond 2 GiB", ErrTooLarge)
		}
		e.offs = append(e.offs, int32(len(e.buf)))
		if len(e.meta.added) > 0 {
			rewritten = append(rewritten, rewrite{row: i, b: e.meta.rewritten()})
		}
	}
	m, err := metadataArray(md, group, rewritten)
	if err != nil {
		return nil, nil, err
	}
	return m, &arrowipc.Array{Len: n, NullCount: group.NullCount, Validity: group.Validity, Offsets: e.offs, Data: e.buf}, nil
}

type rewrite struct {
	row int
	b   []byte
}

// metadataArray is the metadata column with the group's validity: the input's own buffers
// when no row was rewritten and it is not dictionary-encoded, a new array otherwise.
func metadataArray(md leaf, group *arrowipc.Array, rewritten []rewrite) (*arrowipc.Array, error) {
	n := group.Len
	if len(rewritten) == 0 && !md.t.Dictionary {
		out := *md.a
		out.Validity, out.NullCount = group.Validity, group.NullCount
		return &out, nil
	}
	out := &arrowipc.Array{Len: n, NullCount: group.NullCount, Validity: group.Validity, Offsets: make([]int32, 1, n+1)}
	for i := 0; i < n; i++ {
		if valid(group, i) {
			b := md.bytes(i)
			if len(rewritten) > 0 && rewritten[0].row == i {
				b, rewritten = rewritten[0].b, rewritten[1:]
			}
			out.Data = append(out.Data, b...)
			if len(out.Data) > math.MaxInt32 {
				return nil, errf.Errorf("%w: metadata beyond 2 GiB", ErrTooLarge)
			}
		}
		out.Offsets = append(out.Offsets, int32(len(out.Data)))
	}
	return out, nil
}

func fieldIndex(fs []arrowipc.Field, name string) int {
	for i := range fs {
		if fs[i].Name == name {
			return i
		}
	}
	return -1
}

func valid(a *arrowipc.Array, i int) bool {
	return a.Validity == nil || a.Validity[i>>3]&(1<<(i&7)) != 0
}

// leaf reads one column, through its dictionary when it has one. Arrays are validated by
// arrowipc.Validate before any leaf is read, so indexing cannot go out of range.
type leaf struct {
	a *arrowipc.Array
	t arrowipc.DataType
}

func (l *leaf) valid(i int) bool { return valid(l.a, i) }

// at resolves row i to the array holding its value and the index there.
func (l *leaf) at(i int) (*arrowipc.Array, int) {
	if !l.t.Dictionary {
		return l.a, i
	}
	return l.a.Dict, le(l.a.Data[4*i:], 4)
}

func (l *leaf) bytes(i int) []byte {
	a, j := l.at(i)
	return a.Data[a.Offsets[j]:a.Offsets[j+1]]
}

func (l *leaf) fixed(i, w int) []byte {
	a, j := l.at(i)
	return a.Data[j*w : (j+1)*w]
}

func (l *leaf) bit(i int) bool {
	a, j := l.at(i)
	return a.Data[j>>3]&(1<<(j&7)) != 0
}
