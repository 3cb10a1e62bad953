//go:build !pqscan_lean

package variant

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
)

// This file maps a VARIANT group's Arrow type to its shredding layout: VariantShredding.md
// § Shredded Value Types, § Arrays and § Objects.

// pair is a value/typed_value pair of VariantShredding.md § Value Shredding: the top-level
// group, a shredded object field's group or a shredded array's element group.
type pair struct {
	value *leaf  // nil when the group has no value field
	typed *typed // nil when it has no typed_value field
}

type typedKind uint8

const (
	kindPrimitive typedKind = iota
	kindObject
	kindArray
)

// typed is a typed_value column and how it maps to Variant (§ Shredded Value Types).
type typed struct {
	l      leaf
	kind   typedKind
	prim   int // the Variant primitive type of a kindPrimitive (primTrue for booleans)
	scale  int // decimals
	fields []shreddedField
	names  []string        // kindObject: the shredded field names, sorted
	elem   *pair           // kindArray
	elemA  *arrowipc.Array // kindArray: the element group array, for its validity
}

// shredded reports whether name is one of a shredded object's fields.
func (t *typed) shredded(name []byte) bool {
	_, ok := slices.BinarySearchFunc(t.names, name, func(s string, n []byte) int {
		return strings.Compare(s, string(n))
	})
	return ok
}

type shreddedField struct {
	name []byte
	grp  *arrowipc.Array // the field's group, for its validity
	p    pair
}

// compilePair maps the group a of type t (already validated against t) to a pair.
func compilePair(t arrowipc.DataType, a *arrowipc.Array, top bool) (pair, error) {
	var p pair
	for i := range t.Fields {
		f := &t.Fields[i]
		switch f.Name {
		case "metadata":
			if top {
				continue
			}
		case "value":
			if p.value != nil {
				break
			}
			if f.Type.ID != arrowipc.Binary {
				return p, errf.Errorf("%w: value must be binary", ErrShredding)
			}
			p.value = &leaf{a: a.Children[i], t: f.Type}
			continue
		case "typed_value":
			if p.typed != nil {
				break
			}
			tv, err := compileTyped(f, a.Children[i])
			if err != nil {
				return p, err
			}
			p.typed = tv
			continue
		}
		return p, errf.Errorf("%w: unexpected or repeated field %q in a variant group", ErrShredding, f.Name)
	}
	if p.value == nil && p.typed == nil {
		return p, errf.Errorf("%w: a variant group needs value or typed_value", ErrShredding)
	}
	return p, nil
}

func compileTyped(f *arrowipc.Field, a *arrowipc.Array) (*typed, error) {
	t := f.Type
	tv := &typed{l: leaf{a: a, t: t}}
	bad := func() (*typed, error) {
		return nil, errf.Errorf("%w: typed_value of Arrow type %s is not a shredded Variant type", ErrShredding, typeName(t))
	}
	switch t.ID {
	case arrowipc.Struct:
		tv.kind = kindObject
		for i := range t.Fields {
			g := &t.Fields[i]
			if g.Type.ID != arrowipc.Struct {
				return nil, errf.Errorf("%w: shredded field %q must be a group of value and typed_value", ErrShredding, g.Name)
			}
			for _, h := range tv.fields {
				if string(h.name) == g.Name {
					return nil, errf.Errorf("%w: shredded field %q repeated", ErrShredding, g.Name)
				}
			}
			p, err := compilePair(g.Type, a.Children[i], false)
			if err != nil {
				return nil, errf.Errorf("field %q: %w", g.Name, err)
			}
			tv.fields = append(tv.fields, shreddedField{name: []byte(g.Name), grp: a.Children[i], p: p})
			tv.names = append(tv.names, g.Name)
		}
		slices.Sort(tv.names)
		return tv, nil
	case arrowipc.List:
		if t.Elem.Type.ID != arrowipc.Struct {
			return nil, errf.Errorf("%w: a shredded array's element must be a group of value and typed_value", ErrShredding)
		}
		p, err := compilePair(t.Elem.Type, a.Children[0], false)
		if err != nil {
			return nil, errf.Errorf("element: %w", err)
		}
		tv.kind, tv.elem, tv.elemA = kindArray, &p, a.Children[0]
		return tv, nil
	case arrowipc.Bool:
		tv.prim = primTrue
	case arrowipc.Int:
		if !t.Signed {
			return bad()
		}
		switch t.BitWidth {
		case 8:
			tv.prim = primInt8
		case 16:
			tv.prim = primInt16
		case 32:
			tv.prim = primInt32
		case 64:
			tv.prim = primInt64
		}
	case arrowipc.Float:
		switch t.BitWidth {
		case 32:
			tv.prim = primFloat
		case 64:
			tv.prim = primDouble
		default:
			return bad()
		}
	case arrowipc.Decimal:
		if t.BitWidth != 128 || t.Scale < 0 || t.Scale > maxScale || t.Precision > 38 {
			return bad()
		}
		tv.scale = t.Scale
		switch {
		case t.Precision <= 9:
			tv.prim = primDecimal4
		case t.Precision <= 18:
			tv.prim = primDecimal8
		default:
			tv.prim = primDecimal16
		}
	case arrowipc.Date32:
		tv.prim = primDate
	case arrowipc.Time:
		if t.Unit != arrowipc.Microsecond {
			return bad()
		}
		tv.prim = primTime
	case arrowipc.Timestamp:
		switch t.Unit {
		case arrowipc.Microsecond:
			tv.prim = primTimestampNT
			if t.TZ != "" {
				tv.prim = primTimestamp
			}
		case arrowipc.Nanosecond:
			tv.prim = primTimestampNN
			if t.TZ != "" {
				tv.prim = primTimestampNs
			}
		default:
			return bad()
		}
	case arrowipc.Binary:
		tv.prim = primBinary
	case arrowipc.Utf8:
		tv.prim = primString
	case arrowipc.FixedSizeBinary:
		if t.ByteWidth != 16 || !isUUID(f.Metadata) {
			return bad()
		}
		tv.prim = primUUID
	default:
		return bad()
	}
	return tv, nil
}

func isUUID(md [][2]string) bool {
	for _, kv := range md {
		if kv[0] == "ARROW:extension:name" && kv[1] == "arrow.uuid" {
			return true
		}
	}
	return false
}

// typeName names an Arrow type in errors.
func typeName(t arrowipc.DataType) string {
	names := [...]string{"null", "bool", "int", "float", "utf8", "binary", "fixed_size_binary",
		"decimal", "date32", "time", "timestamp", "interval", "list", "struct", "map"}
	if int(t.ID) < len(names) {
		return names[t.ID]
	}
	return "unknown"
}
