package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pqscan/pqscan/decode/thrift"
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
	return 0, fmt.Errorf("%w: list of %v where %v expected at offset %d", ErrInvalid, elem, want, off)
}

// isVarint reports whether t is encoded as a zigzag varint. Generated Thrift readers ignore a
// list's declared element type, and some writers declare i16 for an i32 list
// (bad_data/ARROW-GH-41317); since the encodings are identical such lists are accepted, and
// each value is still range-checked for the type the spec gives it.
func isVarint(t thrift.Type) bool { return t == thrift.I16 || t == thrift.I32 || t == thrift.I64 }

// maxPrealloc caps how many elements of a struct list are allocated before any is decoded: a
// struct element can be as small as one byte on the wire but tens of bytes in memory.
const maxPrealloc = 1024

// readList reads a list of elements of wire type want using read for each element.
func readList[T any](r *thrift.Reader, want thrift.Type, read func() (T, error)) ([]T, error) {
	n, err := listHeader(r, want)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, min(n, maxPrealloc))
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
	return readList(r, thrift.Binary, r.String)
}

func readBinaryList(r *thrift.Reader) ([][]byte, error) {
	return readList(r, thrift.Binary, r.Binary)
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
		return fmt.Errorf("%w: %s is %d", ErrInvalid, name, v)
	}
	return nil
}
