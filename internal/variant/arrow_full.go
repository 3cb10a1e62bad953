//go:build !pqscan_lean

package variant

import (
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
)

// Canonical is the array of ArrowType for group, the physical struct array of a variant
// whose type is typ (IsGroup): Unshred's metadata and value under group's validity. Arrow
// ignores a child's slots under a null parent, so the children carry no validity of their
// own; a non-null row without a value is an error.
func Canonical(typ arrowipc.DataType, group *arrowipc.Array) (*arrowipc.Array, error) {
	meta, val, err := Unshred(typ, group)
	if err != nil {
		return nil, err
	}
	for _, ch := range []*arrowipc.Array{meta, val} {
		if ch.Len != group.Len {
			return nil, errf.Errorf("%w: %d values for %d rows", ErrShredding, ch.Len, group.Len)
		}
		for i := 0; ch.NullCount > 0 && i < ch.Len; i++ {
			if !bitSet(ch.Validity, i) && bitSet(group.Validity, i) {
				return nil, errf.Errorf("%w: row %d has no value", ErrShredding, i)
			}
		}
		ch.Validity, ch.NullCount = nil, 0
	}
	out := *group
	out.Children = []*arrowipc.Array{meta, val}
	return &out, nil
}

// JSONFields is fs with every variant field (IsField, also nested in structs, lists and maps)
// made a JSON text column: utf8 with JSONMeta. ok is false, and fs returned as is, when fs
// holds no variant.
func JSONFields(fs []arrowipc.Field) (out []arrowipc.Field, ok bool) {
	for i, f := range fs {
		g, changed := jsonField(f)
		if !changed {
			continue
		}
		if !ok {
			out, ok = append([]arrowipc.Field(nil), fs...), true
		}
		out[i] = g
	}
	if !ok {
		return fs, false
	}
	return out, true
}

func jsonField(f arrowipc.Field) (arrowipc.Field, bool) {
	if IsField(f) {
		f.Type = arrowipc.DataType{ID: arrowipc.Utf8}
		f.Metadata = JSONMeta
		return f, true
	}
	switch f.Type.ID {
	case arrowipc.Struct:
		kids, ok := JSONFields(f.Type.Fields)
		f.Type.Fields = kids
		return f, ok
	case arrowipc.List, arrowipc.Map:
		if f.Type.Elem == nil {
			return f, false
		}
		el, ok := jsonField(*f.Type.Elem)
		f.Type.Elem = &el
		return f, ok
	}
	return f, false
}

// JSONArrays converts the columns cols of fields fs as JSONFields converts the fields: each
// variant becomes the JSON text of its values (internal/variant AppendJSON), null where the
// variant is null. Columns without a variant are returned as they are.
func JSONArrays(fs []arrowipc.Field, cols []*arrowipc.Array) ([]*arrowipc.Array, error) {
	var out []*arrowipc.Array
	for i, f := range fs {
		if i >= len(cols) {
			break
		}
		a, changed, err := jsonArray(f, cols[i])
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		if out == nil {
			out = append([]*arrowipc.Array(nil), cols...)
		}
		out[i] = a
	}
	if out == nil {
		return cols, nil
	}
	return out, nil
}

func jsonArray(f arrowipc.Field, a *arrowipc.Array) (*arrowipc.Array, bool, error) {
	if IsField(f) {
		if len(a.Children) != 2 {
			return nil, false, errf.Errorf("%w: a variant array with %d children", ErrShredding, len(a.Children))
		}
		meta, val := a.Children[0], a.Children[1]
		out := &arrowipc.Array{Len: a.Len, NullCount: a.NullCount, Validity: a.Validity, Offsets: make([]int32, 1, a.Len+1)}
		for i := 0; i < a.Len; i++ {
			if bitSet(a.Validity, i) {
				m, err1 := binaryAt(meta, i)
				v, err2 := binaryAt(val, i)
				if err1 != nil || err2 != nil {
					return nil, false, errf.Errorf("%w: row %d: offsets out of range", ErrValue, i)
				}
				var err error
				if out.Data, err = AppendJSON(out.Data, m, v); err != nil {
					return nil, false, errf.Errorf("row %d: %w", i, err)
				}
				if len(out.Data) > 1<<31-1 {
					return nil, false, errf.Errorf("%w: JSON text of more than 2 GiB in one batch", ErrTooLarge)
				}
			}
			out.Offsets = append(out.Offsets, int32(len(out.Data)))
		}
		return out, true, nil
	}
	switch f.Type.ID {
	case arrowipc.Struct:
		kids, err := JSONArrays(f.Type.Fields, a.Children)
		if err != nil || len(kids) == 0 || sameSlice(kids, a.Children) {
			return a, false, err
		}
		cp := *a
		cp.Children = kids
		return &cp, true, nil
	case arrowipc.List, arrowipc.Map:
		if f.Type.Elem == nil || len(a.Children) != 1 {
			return a, false, nil
		}
		el, changed, err := jsonArray(*f.Type.Elem, a.Children[0])
		if err != nil || !changed {
			return a, false, err
		}
		cp := *a
		cp.Children = []*arrowipc.Array{el}
		return &cp, true, nil
	}
	return a, false, nil
}

func sameSlice(a, b []*arrowipc.Array) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// binaryAt is value i of a Binary array, checked against its offsets and data.
func binaryAt(a *arrowipc.Array, i int) ([]byte, error) {
	if i+1 >= len(a.Offsets) {
		return nil, ErrValue
	}
	lo, hi := a.Offsets[i], a.Offsets[i+1]
	if lo < 0 || hi < lo || int(hi) > len(a.Data) {
		return nil, ErrValue
	}
	return a.Data[lo:hi], nil
}
