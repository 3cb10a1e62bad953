package avro

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseSchemaStd is ParseSchema as it read schemas with encoding/json: the oracle of
// FuzzSchemaStd. It parses a writer's schema (the JSON of the header's avro.schema).
func parseSchemaStd(js []byte) (*Schema, error) {
	if len(js) > maxSchemaBytes {
		return nil, fmt.Errorf("%w: %d bytes of schema", ErrLimit, len(js))
	}
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	p := stdParser{named: map[string]*Schema{}}
	return p.parse(v, "", 0)
}

type stdParser struct{ named map[string]*Schema }

func (p *stdParser) parse(v any, ns string, depth int) (*Schema, error) {
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

func (p *stdParser) object(o map[string]any, ns string, depth int) (*Schema, error) {
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
				s.Fields = append(s.Fields, Field{Name: fname, Type: fsch, Props: stdProps(fo)})
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
	s.Props = stdProps(o)
	return s, nil
}

// props keeps the attributes Schema does not model (nil when there are none).
func stdProps(o map[string]any) map[string]any {
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

// FuzzSchemaStd: ParseSchema accepts the schemas encoding/json's reading accepted and
// builds the same tree (a record referring to itself included).
func FuzzSchemaStd(f *testing.F) {
	for _, s := range []string{entrySchema, `"long"`, `["null","int"]`, `{"type":"enum","name":"E","symbols":["a"]}`,
		`{"type":"array","items":"long","element-id":3}`, `{"type":"map","values":{"type":"fixed","name":"F","size":16.0}}`,
		`{"type":"record","name":"L","namespace":"n","fields":[{"name":"next","type":["null","L"],"field-id":1,"x":[1,{"y":null}]}]}`,
		`{"type":"record","name":"a.R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":[1]}}]}`,
		`{"type":{"type":"fixed","name":"F","size":1e400}}`, `{"type":"fixed","name":"F","size":-1}`, `{"type":null}`, `[]`, `7`,
		`{"type":"record","name":"R","fields":[null]}`, `{"type":"record","name":"R","fields":{}}`, `{"type":"F"}`,
		`{"type":"int","logicalType":"date","a":1,"a":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseSchema(b)
		want, werr := parseSchemaStd(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonv %v, encoding/json %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("read differently:\n%#v\n%#v", got, want)
		}
	})
}

// Test_Equal: Equal is reflect.DeepEqual on every kind of decoded value.
func Test_Equal(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	vals := []any{nil, true, false, int64(1), int64(2), float32(1), nan, float64(1), "a", "b", []byte{}, []byte(nil), []byte("a"),
		[]any{}, []any(nil), []any{int64(1)}, []any{int64(1), nil}, map[string]any{}, map[string]any(nil),
		map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "b": nil}, map[string]any{"b": int64(1)},
		map[string]any{"a": []any{[]byte("x")}}, map[string]any{"a": []any{[]byte("y")}}}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := Equal(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("Equal(%#v, %#v) = %v, DeepEqual %v", a, b, got, want)
			}
		}
	}
	if Equal(int32(1), int32(1)) {
		t.Error("a type Decode does not give equals nothing")
	}
}
