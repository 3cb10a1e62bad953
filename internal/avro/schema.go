package avro

import (
	"errors"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// Avro specification 1.11, "Schema Declaration": a schema is a JSON string (a primitive or
// a named type defined earlier), an object ({"type": …}) or an array (a union).

// Kind is an Avro type.
type Kind uint8

const (
	Null Kind = iota
	Boolean
	Int
	Long
	Float
	Double
	Bytes
	String
	Record
	Enum
	Array
	Map
	Union
	Fixed
)

var primitives = map[string]Kind{"null": Null, "boolean": Boolean, "int": Int, "long": Long,
	"float": Float, "double": Double, "bytes": Bytes, "string": String}

// Schema is a parsed writer's schema. Named types referenced more than once share one
// *Schema, and a record may refer to itself (a linked list): walk it with a depth bound.
type Schema struct {
	Kind     Kind
	Name     string    // the full name of a record, enum or fixed
	Logical  string    // logicalType, when given; values are decoded as the underlying type
	Fields   []Field   // Record
	Items    *Schema   // Array: the element type; Map: the value type
	Branches []*Schema // Union
	Symbols  []string  // Enum
	Size     int       // Fixed
	// Props holds the attributes of a record field or type not modelled above, raw
	// (Iceberg's "field-id", "element-id"), keyed by name.
	Props map[string]any
}

// Field is one field of a record.
type Field struct {
	Name  string
	Type  *Schema
	Props map[string]any // attributes other than name, type, doc, default, aliases, order
}

// MaxDepth bounds how deeply a schema nests and how deeply values are decoded.
const MaxDepth = 64

// maxSchemaBytes bounds the schema JSON: manifests' schemas are a few KiB.
const maxSchemaBytes = 4 << 20

// ParseSchema parses a writer's schema (the JSON of the header's avro.schema). The JSON is
// read with jsonv (the wasm module's size budget has no room for encoding/json); it is
// refused where encoding/json refused it: invalid JSON, or a number beyond float64 anywhere.
func ParseSchema(js []byte) (*Schema, error) {
	if len(js) > maxSchemaBytes {
		return nil, errf.Errorf("%w: %d bytes of schema", ErrLimit, len(js))
	}
	v, err := jsonv.Parse(js)
	if err == nil && v.HasBig() {
		err = errors.New("a number beyond float64")
	}
	if err != nil {
		return nil, errf.Errorf("%w: %v", ErrSchema, err)
	}
	p := parser{named: map[string]*Schema{}}
	return p.parse(&v, "", 0)
}

type parser struct{ named map[string]*Schema }

// fullName qualifies name with the enclosing namespace unless it holds a dot already.
func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (p *parser) parse(v *jsonv.Value, ns string, depth int) (*Schema, error) {
	if depth > MaxDepth {
		return nil, errf.Errorf("%w: nested deeper than %d", ErrLimit, MaxDepth)
	}
	switch v.Kind {
	case jsonv.String:
		if k, ok := primitives[v.S]; ok {
			return &Schema{Kind: k}, nil
		}
		if s, ok := p.named[fullName(v.S, ns)]; ok {
			return s, nil
		}
		if s, ok := p.named[v.S]; ok {
			return s, nil
		}
		return nil, errf.Errorf("%w: undefined type %q", ErrSchema, v.S)
	case jsonv.Array:
		u := &Schema{Kind: Union}
		for i := range v.Elems {
			s, err := p.parse(&v.Elems[i], ns, depth+1)
			if err != nil {
				return nil, err
			}
			u.Branches = append(u.Branches, s)
		}
		if len(u.Branches) == 0 {
			return nil, errf.Errorf("%w: an empty union", ErrSchema)
		}
		return u, nil
	case jsonv.Object:
		return p.object(v, ns, depth)
	}
	return nil, errf.Errorf("%w: a type is %s", ErrSchema, kindName(v))
}

// kindName names what a JSON value is in messages ("a number", "null").
func kindName(v *jsonv.Value) string {
	if v == nil {
		return "absent"
	}
	return v.Kind.String()
}

// str is v's string, "" when v is absent or not a string.
func str(v *jsonv.Value) string {
	s, _ := v.Str()
	return s
}

func (p *parser) object(o *jsonv.Value, ns string, depth int) (*Schema, error) {
	t := o.Get("type")
	if t == nil {
		return nil, errf.Errorf("%w: a type object without \"type\"", ErrSchema)
	}
	name := str(o.Get("name"))
	if n := str(o.Get("namespace")); n != "" && !strings.Contains(name, ".") {
		ns = n
	}
	if t.Kind != jsonv.String {
		return p.parse(t, ns, depth+1) // {"type": {…}} or {"type": [...]}: the inner type
	}
	ts := t.S
	var s *Schema
	switch ts {
	case "record", "error", "enum", "fixed":
		if name == "" {
			return nil, errf.Errorf("%w: a %s without a name", ErrSchema, ts)
		}
		full := fullName(name, ns)
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			ns = full[:i]
		}
		s = &Schema{Name: full}
		p.named[full] = s // before the fields: a record may refer to itself
		switch ts {
		case "enum":
			s.Kind = Enum
			if syms := o.Get("symbols"); syms != nil && syms.Kind == jsonv.Array {
				for i := range syms.Elems {
					y := &syms.Elems[i]
					if y.Kind != jsonv.String {
						return nil, errf.Errorf("%w: enum %s: a symbol is %s", ErrSchema, full, kindName(y))
					}
					s.Symbols = append(s.Symbols, y.S)
				}
			}
		case "fixed":
			s.Kind = Fixed
			sz := o.Get("size")
			n, ok := sz.Float64()
			if !ok || n < 0 || n > 1<<20 || n != float64(int(n)) {
				return nil, errf.Errorf("%w: fixed %s: size %s", ErrSchema, full, rawText(sz))
			}
			s.Size = int(n)
		default:
			s.Kind = Record
			fs := o.Get("fields")
			if fs == nil || fs.Kind != jsonv.Array {
				return nil, errf.Errorf("%w: record %s without fields", ErrSchema, full)
			}
			for i := range fs.Elems {
				fo := &fs.Elems[i]
				if fo.Kind != jsonv.Object {
					return nil, errf.Errorf("%w: record %s: a field is %s", ErrSchema, full, kindName(fo))
				}
				fname := str(fo.Get("name"))
				ft := fo.Get("type")
				if fname == "" || ft == nil {
					return nil, errf.Errorf("%w: record %s: a field without a name or type", ErrSchema, full)
				}
				fsch, err := p.parse(ft, ns, depth+1)
				if err != nil {
					return nil, errf.Errorf("record %s field %s: %w", full, fname, err)
				}
				s.Fields = append(s.Fields, Field{Name: fname, Type: fsch, Props: props(fo)})
			}
		}
	case "array", "map":
		key := "items"
		s = &Schema{Kind: Array}
		if ts == "map" {
			key, s.Kind = "values", Map
		}
		it := o.Get(key)
		if it == nil {
			return nil, errf.Errorf("%w: %s without %s", ErrSchema, ts, key)
		}
		var err error
		if s.Items, err = p.parse(it, ns, depth+1); err != nil {
			return nil, err
		}
	default:
		k, ok := primitives[ts]
		if !ok {
			// A named type written as {"type": "Name"}.
			return p.parse(t, ns, depth+1)
		}
		s = &Schema{Kind: k}
	}
	s.Logical = str(o.Get("logicalType"))
	s.Props = props(o)
	return s, nil
}

// rawText is v's JSON as written, "absent" when there is none.
func rawText(v *jsonv.Value) string {
	if v == nil {
		return "absent"
	}
	return string(v.Raw)
}

// props keeps the attributes Schema does not model (nil when there are none), as
// encoding/json decodes JSON into an any.
func props(o *jsonv.Value) map[string]any {
	var out map[string]any
	for i, k := range o.Keys {
		switch k {
		case "name", "type", "namespace", "doc", "default", "aliases", "order", "fields", "symbols", "items", "values", "size", "logicalType":
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = toAny(&o.Vals[i])
	}
	return out
}

// toAny is v as encoding/json decodes it into an any: numbers float64, objects maps.
func toAny(v *jsonv.Value) any {
	switch v.Kind {
	case jsonv.Bool:
		return v.B
	case jsonv.Number:
		return v.N
	case jsonv.String:
		return v.S
	case jsonv.Array:
		out := make([]any, len(v.Elems))
		for i := range v.Elems {
			out[i] = toAny(&v.Elems[i])
		}
		return out
	case jsonv.Object:
		out := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			out[k] = toAny(&v.Vals[i])
		}
		return out
	}
	return nil
}

// minSize is the fewest bytes one value of s takes (a block's count bounded by its bytes).
// Recursion through records is cut at depth: what it cannot see counts as 0.
func minSize(s *Schema, depth int) int {
	if depth > MaxDepth {
		return 0
	}
	switch s.Kind {
	case Null:
		return 0
	case Float:
		return 4
	case Double:
		return 8
	case Fixed:
		return s.Size
	case Record:
		n := 0
		for _, f := range s.Fields {
			n += minSize(f.Type, depth+1)
		}
		return n
	}
	return 1 // a varint, a length, a block count, a union index, a boolean
}
