package avro

import (
	"encoding/json"
	"fmt"
	"strings"
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

// ParseSchema parses a writer's schema (the JSON of the header's avro.schema).
func ParseSchema(js []byte) (*Schema, error) {
	if len(js) > maxSchemaBytes {
		return nil, fmt.Errorf("%w: %d bytes of schema", ErrLimit, len(js))
	}
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	p := parser{named: map[string]*Schema{}}
	return p.parse(v, "", 0)
}

type parser struct{ named map[string]*Schema }

// fullName qualifies name with the enclosing namespace unless it holds a dot already.
func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (p *parser) parse(v any, ns string, depth int) (*Schema, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrLimit, MaxDepth)
	}
	switch v := v.(type) {
	case string:
		if k, ok := primitives[v]; ok {
			return &Schema{Kind: k}, nil
		}
		if s, ok := p.named[fullName(v, ns)]; ok {
			return s, nil
		}
		if s, ok := p.named[v]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("%w: undefined type %q", ErrSchema, v)
	case []any:
		u := &Schema{Kind: Union}
		for _, b := range v {
			s, err := p.parse(b, ns, depth+1)
			if err != nil {
				return nil, err
			}
			u.Branches = append(u.Branches, s)
		}
		if len(u.Branches) == 0 {
			return nil, fmt.Errorf("%w: an empty union", ErrSchema)
		}
		return u, nil
	case map[string]any:
		return p.object(v, ns, depth)
	}
	return nil, fmt.Errorf("%w: a type is %T", ErrSchema, v)
}

func (p *parser) object(o map[string]any, ns string, depth int) (*Schema, error) {
	t, ok := o["type"]
	if !ok {
		return nil, fmt.Errorf("%w: a type object without \"type\"", ErrSchema)
	}
	name, _ := o["name"].(string)
	if n, ok := o["namespace"].(string); ok && n != "" && !strings.Contains(name, ".") {
		ns = n
	}
	ts, isString := t.(string)
	if !isString {
		return p.parse(t, ns, depth+1) // {"type": {…}} or {"type": [...]}: the inner type
	}
	var s *Schema
	switch ts {
	case "record", "error", "enum", "fixed":
		if name == "" {
			return nil, fmt.Errorf("%w: a %s without a name", ErrSchema, ts)
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
			syms, _ := o["symbols"].([]any)
			for _, y := range syms {
				str, ok := y.(string)
				if !ok {
					return nil, fmt.Errorf("%w: enum %s: a symbol is %T", ErrSchema, full, y)
				}
				s.Symbols = append(s.Symbols, str)
			}
		case "fixed":
			s.Kind = Fixed
			n, ok := o["size"].(float64)
			if !ok || n < 0 || n > 1<<20 || n != float64(int(n)) {
				return nil, fmt.Errorf("%w: fixed %s: size %v", ErrSchema, full, o["size"])
			}
			s.Size = int(n)
		default:
			s.Kind = Record
			fs, ok := o["fields"].([]any)
			if !ok {
				return nil, fmt.Errorf("%w: record %s without fields", ErrSchema, full)
			}
			for _, f := range fs {
				fo, ok := f.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%w: record %s: a field is %T", ErrSchema, full, f)
				}
				fname, _ := fo["name"].(string)
				ft, ok := fo["type"]
				if fname == "" || !ok {
					return nil, fmt.Errorf("%w: record %s: a field without a name or type", ErrSchema, full)
				}
				fsch, err := p.parse(ft, ns, depth+1)
				if err != nil {
					return nil, fmt.Errorf("record %s field %s: %w", full, fname, err)
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
		it, ok := o[key]
		if !ok {
			return nil, fmt.Errorf("%w: %s without %s", ErrSchema, ts, key)
		}
		var err error
		if s.Items, err = p.parse(it, ns, depth+1); err != nil {
			return nil, err
		}
	default:
		k, ok := primitives[ts]
		if !ok {
			// A named type written as {"type": "Name"}.
			return p.parse(ts, ns, depth+1)
		}
		s = &Schema{Kind: k}
	}
	s.Logical, _ = o["logicalType"].(string)
	s.Props = props(o)
	return s, nil
}

// props keeps the attributes Schema does not model (nil when there are none).
func props(o map[string]any) map[string]any {
	var out map[string]any
	for k, v := range o {
		switch k {
		case "name", "type", "namespace", "doc", "default", "aliases", "order", "fields", "symbols", "items", "values", "size", "logicalType":
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
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
