package format

import (
	"errors"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// This file holds the table-driven struct reader all decoders share: each struct lists its
// fields (id, wire type, required); fields whose id is unknown or whose wire type differs from
// the spec are skipped, as generated Thrift code does, and missing required fields are errors.

// field describes one field of a thrift struct. typ thrift.BoolTrue stands for "bool" (either
// bool id matches) and thrift.List for "list or set".
type field struct {
	id   int16
	typ  thrift.Type
	req  bool
	name string
}

// structSpec names a struct and lists its fields.
type structSpec struct {
	name   string
	fields []field
}

func (s *structSpec) lookup(id int16, t thrift.Type) *field {
	for i := range s.fields {
		f := &s.fields[i]
		if f.id != id {
			continue
		}
		switch {
		case f.typ == t,
			f.typ == thrift.BoolTrue && t.IsBool(),
			f.typ == thrift.List && t == thrift.Set:
			return f
		}
		return nil
	}
	return nil
}

// pathError records where in the structure tree decoding failed, e.g.
// "format: FileMetaData.row_groups.columns.meta_data: thrift: truncated input at offset 123".
type pathError struct {
	root  string
	path  []string
	cause error
}

func (e *pathError) Error() string {
	var b strings.Builder
	b.WriteString("format: ")
	b.WriteString(e.root)
	for _, p := range e.path {
		b.WriteByte('.')
		b.WriteString(p)
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.cause.Error(), "format: "))
	return b.String()
}

func (e *pathError) Unwrap() error { return e.cause }

// readStruct reads one struct described by spec, calling fn(f, t) for each known field whose
// wire type matches; fn must consume the value. t is the wire type (for bools, the value).
func readStruct(r *thrift.Reader, spec *structSpec, fn func(f *field, t thrift.Type) error) error {
	var seen uint64
	err := r.ReadStruct(func(id int16, t thrift.Type) error {
		f := spec.lookup(id, t)
		if f == nil {
			return r.Skip(t)
		}
		if err := fn(f, t); err != nil {
			var pe *pathError
			if errors.As(err, &pe) {
				pe.root = spec.name
				pe.path = append([]string{f.name}, pe.path...)
				return pe
			}
			return &pathError{root: spec.name, path: []string{f.name}, cause: err}
		}
		if f.id >= 0 && f.id < 64 {
			seen |= 1 << f.id
		}
		return nil
	})
	if err != nil {
		var pe *pathError
		if errors.As(err, &pe) {
			return err
		}
		return &pathError{root: spec.name, cause: err}
	}
	for i := range spec.fields {
		f := &spec.fields[i]
		if f.req && seen&(1<<f.id) == 0 {
			return &pathError{root: spec.name, path: []string{f.name}, cause: ErrMissingField}
		}
	}
	return nil
}

// listHeader reads a list header whose elements must have wire type want (thrift.BoolTrue
// accepts either bool id). n is bounded by the remaining input.
func listHeader(r *thrift.Reader, want thrift.Type) (int, error) {
	off := r.Offset()
	elem, n, err := r.ListHeader()
	if err != nil {
		return 0, err
	}
	if n == 0 || elem == want || (want == thrift.BoolTrue && elem.IsBool()) ||
		(isVarint(want) && isVarint(elem)) {
		return n, nil
	}
	return 0, errf.Errorf("%w: list of %v where %v expected at offset %d", ErrInvalid, elem, want, off)
}

// isVarint reports whether t is encoded as a zigzag varint. Generated Thrift readers ignore a
// list's declared element type, and some writers declare i16 for an i32 list
// (bad_data/ARROW-GH-41317); since the encodings are identical such lists are accepted, and
// each value is still range-checked for the type the spec gives it.
func isVarint(t thrift.Type) bool { return t == thrift.I16 || t == thrift.I32 || t == thrift.I64 }

// readList reads a list whose elements have wire type want, using read for each element.
// minEnc is the fewest bytes one valid element can occupy (its required fields plus STOP); a
// count that cannot fit in the remaining input at that size is rejected, and the slice is then
// allocated once at its final length. So a list never allocates more than
// sizeof(T)/minEnc bytes per input byte, and append never regrows it.
func readList[T any](r *thrift.Reader, want thrift.Type, minEnc int, read func() (T, error)) ([]T, error) {
	off := r.Offset()
	n, err := listHeader(r, want)
	if err != nil {
		return nil, err
	}
	if n > r.Remaining()/minEnc {
		return nil, errf.Errorf("%w at offset %d: %d elements of at least %d bytes",
			thrift.ErrSize, off, n, minEnc)
	}
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		v, err := read()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func readI64List(r *thrift.Reader) ([]int64, error) {
	n, err := listHeader(r, thrift.I64)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		if out[i], err = r.I64(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readI32List(r *thrift.Reader) ([]int32, error) {
	n, err := listHeader(r, thrift.I32)
	if err != nil {
		return nil, err
	}
	out := make([]int32, n)
	for i := range out {
		if out[i], err = r.I32(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readStringList(r *thrift.Reader) ([]string, error) {
	return readList(r, thrift.Binary, 1, r.String)
}

func readBinaryList(r *thrift.Reader) ([][]byte, error) {
	return readList(r, thrift.Binary, 1, r.Binary)
}

func readBoolList(r *thrift.Reader) ([]bool, error) {
	n, err := listHeader(r, thrift.BoolTrue)
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		if out[i], err = r.BoolElem(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Small helpers that read a value and return a pointer, for optional fields.

func optI32(r *thrift.Reader) (*int32, error) {
	v, err := r.I32()
	return &v, err
}

func optI64(r *thrift.Reader) (*int64, error) {
	v, err := r.I64()
	return &v, err
}

func optString(r *thrift.Reader) (*string, error) {
	v, err := r.String()
	return &v, err
}

func optBool(t thrift.Type) *bool {
	v := t == thrift.BoolTrue
	return &v
}

func optDouble(r *thrift.Reader) (*float64, error) {
	v, err := r.Double()
	return &v, err
}

// readEnum reads an i32 enum value.
func readEnum[E ~int32](r *thrift.Reader) (E, error) {
	v, err := r.I32()
	return E(v), err
}

func optEnum[E ~int32](r *thrift.Reader) (*E, error) {
	v, err := r.I32()
	e := E(v)
	return &e, err
}

// checkNonNegative rejects a negative size or count that callers will use in arithmetic.
func checkNonNegative(name string, v int32) error {
	if v < 0 {
		return errf.Errorf("%w: %s is %d", ErrInvalid, name, v)
	}
	return nil
}

// Smallest valid encodings of list element structs: one header byte plus at least one value
// byte per required field (a bool field is only its header byte), plus the STOP byte.
const (
	minSchemaElement     = 3 // name
	minColumnChunk       = 3 // file_offset
	minRowGroup          = 7 // columns, total_byte_size, num_rows
	minKeyValue          = 3 // key
	minSortingColumn     = 5 // column_idx, descending, nulls_first
	minColumnOrder       = 1 // an empty union
	minPageEncodingStats = 7 // page_type, encoding, count
	minPageLocation      = 7 // offset, compressed_page_size, first_row_index
)
