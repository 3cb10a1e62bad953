package delta

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
)

// Schema parsing (PROTOCOL.md "Schema Serialization Format"): Spark SQL's JSON schema, a struct
// of fields whose types are primitive names or nested struct/array/map objects. timestamp is
// microseconds adjusted to UTC, timestamp_ntz microseconds without zone; "decimal" alone is
// decimal(10,0) as in Spark. variant is refused (ErrUnsupportedFeature): its Parquet encoding
// is not read by this engine.

type jsonField struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable *bool           `json:"nullable"`
	Metadata map[string]any  `json:"metadata"`
}

type jsonType struct {
	Type              string          `json:"type"`
	Fields            []jsonField     `json:"fields"`
	ElementType       json.RawMessage `json:"elementType"`
	ContainsNull      *bool           `json:"containsNull"`
	KeyType           json.RawMessage `json:"keyType"`
	ValueType         json.RawMessage `json:"valueType"`
	ValueContainsNull *bool           `json:"valueContainsNull"`
}

// maxSchemaDepth bounds nesting so that a hostile schema cannot exhaust the stack.
const maxSchemaDepth = 64

// ParseSchema parses a metaData schemaString into the table's top-level fields.
func ParseSchema(s string) ([]schema.Field, error) {
	var t jsonType
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if t.Type != "struct" {
		return nil, fmt.Errorf("%w: top level is %q, want struct", ErrSchema, t.Type)
	}
	return parseFields(t.Fields, "", 0)
}

func parseFields(fs []jsonField, prefix string, depth int) ([]schema.Field, error) {
	out := make([]schema.Field, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		path := prefix + f.Name
		if f.Name == "" {
			return nil, fmt.Errorf("%w: field without a name in %q", ErrSchema, prefix)
		}
		if low := strings.ToLower(f.Name); seen[low] {
			return nil, fmt.Errorf("%w: duplicate column %q (names are case-insensitive)", ErrSchema, path)
		} else {
			seen[low] = true
		}
		nf, err := parseType(f.Type, path, depth+1)
		if err != nil {
			return nil, err
		}
		nf.Name = f.Name
		nf.Nullable = f.Nullable == nil || *f.Nullable
		if err := readColumnMapping(&nf, f.Metadata, path); err != nil {
			return nil, err
		}
		if tc, ok := f.Metadata["delta.typeChanges"]; ok {
			if err := applyTypeChanges(&nf, tc, path); err != nil {
				return nil, err
			}
		}
		out = append(out, nf)
	}
	return out, nil
}

func parseType(raw json.RawMessage, path string, depth int) (schema.Field, error) {
	if depth > maxSchemaDepth {
		return schema.Field{}, fmt.Errorf("%w: %q nested deeper than %d", ErrSchema, path, maxSchemaDepth)
	}
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		t, err := primitive(name, path)
		return schema.Field{Type: t}, err
	}
	var t jsonType
	if err := json.Unmarshal(raw, &t); err != nil {
		return schema.Field{}, fmt.Errorf("%w: column %q: %v", ErrSchema, path, err)
	}
	switch t.Type {
	case "struct":
		kids, err := parseFields(t.Fields, path+".", depth)
		return schema.Field{Type: schema.Type{Kind: schema.Struct}, Children: kids}, err
	case "array":
		el, err := parseType(t.ElementType, path+".element", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		el.Name, el.Nullable = "element", t.ContainsNull == nil || *t.ContainsNull
		return schema.Field{Type: schema.Type{Kind: schema.List}, Children: []schema.Field{el}}, nil
	case "map":
		k, err := parseType(t.KeyType, path+".key", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		v, err := parseType(t.ValueType, path+".value", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		k.Name, k.Nullable = "key", false
		v.Name, v.Nullable = "value", t.ValueContainsNull == nil || *t.ValueContainsNull
		return schema.Field{Type: schema.Type{Kind: schema.Map}, Children: []schema.Field{k, v}}, nil
	}
	return schema.Field{}, fmt.Errorf("%w: column %q: unknown type %q", ErrSchema, path, t.Type)
}

func primitive(name, path string) (schema.Type, error) {
	switch name {
	case "string":
		return schema.Type{Kind: schema.String}, nil
	case "long":
		return schema.Type{Kind: schema.Int64}, nil
	case "integer":
		return schema.Type{Kind: schema.Int32}, nil
	case "short":
		return schema.Type{Kind: schema.Int16}, nil
	case "byte":
		return schema.Type{Kind: schema.Int8}, nil
	case "float":
		return schema.Type{Kind: schema.Float32}, nil
	case "double":
		return schema.Type{Kind: schema.Float64}, nil
	case "boolean":
		return schema.Type{Kind: schema.Bool}, nil
	case "binary":
		return schema.Type{Kind: schema.Binary}, nil
	case "date":
		return schema.Type{Kind: schema.Date}, nil
	case "timestamp":
		return schema.Type{Kind: schema.Timestamp, Unit: prune.Micro, UTC: true}, nil
	case "timestamp_ntz":
		return schema.Type{Kind: schema.Timestamp, Unit: prune.Micro}, nil
	case "decimal":
		return schema.Type{Kind: schema.Decimal, Precision: 10}, nil
	case "variant":
		return schema.Type{}, fmt.Errorf("%w: variantType (column %q)", ErrUnsupportedFeature, path)
	}
	if strings.HasPrefix(name, "decimal(") && strings.HasSuffix(name, ")") {
		ps := strings.Split(name[len("decimal("):len(name)-1], ",")
		if len(ps) == 2 {
			p, err1 := strconv.Atoi(strings.TrimSpace(ps[0]))
			s, err2 := strconv.Atoi(strings.TrimSpace(ps[1]))
			if err1 == nil && err2 == nil && p >= 1 && p <= 38 && s >= 0 && s <= p {
				return schema.Type{Kind: schema.Decimal, Precision: int32(p), Scale: int32(s)}, nil
			}
		}
	}
	return schema.Type{}, fmt.Errorf("%w: column %q: unknown type %q", ErrSchema, path, name)
}

// Type widening (PROTOCOL.md "Type Widening", "Type Change Metadata"): a field's metadata key
// delta.typeChanges lists the type changes of the field, or with fieldPath ("element", "key",
// "value", dot-separated through nested arrays and maps) of an element, key or value inside
// it. Readers must fail on a change they do not support; the supported ones are the
// protocol's list: byte → short → int → long; float → double; byte, short, int → double;
// byte, short, int, long → decimal with room for every value; decimal(p, s) → decimal(p + k1,
// s + k2) with k1 >= k2 >= 0; date → timestamp_ntz.

type typeChange struct {
	FromType  string `json:"fromType"`
	ToType    string `json:"toType"`
	FieldPath string `json:"fieldPath"`
}

// applyTypeChanges checks the changes recorded for f (a JSON list, or a string holding one)
// and records each one's fromType in Widened of the field it names.
func applyTypeChanges(f *schema.Field, raw any, path string) error {
	var b []byte
	if s, ok := raw.(string); ok {
		b = []byte(s)
	} else {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return fmt.Errorf("%w: column %q: delta.typeChanges: %v", ErrSchema, path, err)
		}
	}
	var changes []typeChange
	if err := json.Unmarshal(b, &changes); err != nil {
		return fmt.Errorf("%w: column %q: delta.typeChanges: %v", ErrSchema, path, err)
	}
	for _, c := range changes {
		target, at := f, path
		if c.FieldPath != "" {
			for _, step := range strings.Split(c.FieldPath, ".") {
				at += "." + step
				k := -1
				switch {
				case step == "element" && target.Type.Kind == schema.List:
					k = 0
				case step == "key" && target.Type.Kind == schema.Map:
					k = 0
				case step == "value" && target.Type.Kind == schema.Map:
					k = 1
				}
				if k < 0 || k >= len(target.Children) {
					return fmt.Errorf("%w: column %q: delta.typeChanges names %q, which is not in the schema", ErrSchema, path, c.FieldPath)
				}
				target = &target.Children[k]
			}
		}
		from, err1 := primitive(c.FromType, at)
		to, err2 := primitive(c.ToType, at)
		if err1 != nil || err2 != nil || !deltaWidens(from, to) {
			return fmt.Errorf("%w: typeWidening: column %q changed from %q to %q", ErrUnsupportedFeature, at, c.FromType, c.ToType)
		}
		target.Widened = append(target.Widened, from)
	}
	return nil
}

// deltaWidens is the protocol's list of supported type changes: package schema's widenings
// without those Delta does not define (string to binary, timestamp units).
func deltaWidens(from, to schema.Type) bool {
	switch from.Kind {
	case schema.String, schema.Binary, schema.Bool, schema.Timestamp:
		return false
	}
	return from != to && schema.Widens(from, to)
}
