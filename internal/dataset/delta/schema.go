package delta

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
)

// Schema parsing (PROTOCOL.md "Schema Serialization Format"): Spark SQL's JSON schema, a struct
// of fields whose types are primitive names or nested struct/array/map objects. timestamp is
// microseconds adjusted to UTC, timestamp_ntz microseconds without zone; "decimal" alone is
// decimal(10,0) as in Spark. variant is refused (ErrUnsupportedFeature): its Parquet encoding
// is not read by this engine.

// jsonField is one field of a struct type, jsonType a type given as an object: both read
// whole, as one level of the schema, before the types they hold are (a member of the wrong
// type at one level is an ErrSchema before any type inside it is looked at).
type jsonField struct {
	Name     string
	Type     *jsonv.Value // nil: absent
	Nullable *bool
	Metadata *jsonv.Value // an object or nil
}

type jsonType struct {
	Type              string
	Fields            []jsonField
	ElementType       *jsonv.Value
	ContainsNull      *bool
	KeyType           *jsonv.Value
	ValueType         *jsonv.Value
	ValueContainsNull *bool
}

// decodeType reads a type object (null reads as a type without members, as encoding/json
// decodes it).
func decodeType(v *jsonv.Value) (jsonType, error) {
	o := jsonv.NewObj(v, "")
	t := jsonType{Type: o.Str("type"), ElementType: raw(o, "elementType"), ContainsNull: optBool(o, "containsNull"),
		KeyType: raw(o, "keyType"), ValueType: raw(o, "valueType"), ValueContainsNull: optBool(o, "valueContainsNull")}
	fs := o.Objs("fields")
	if fs != nil {
		t.Fields = make([]jsonField, len(fs))
	}
	for i, f := range fs {
		t.Fields[i] = jsonField{Name: f.Str("name"), Type: raw(f, "type"), Nullable: optBool(f, "nullable")}
		if md := f.Get("metadata"); md != nil {
			if md.Kind != jsonv.Object {
				f.Fail("metadata", "an object", md.Kind)
			} else if md.HasBig() {
				// Metadata values are read as doubles (Spark's reader, this one's earlier
				// encoding/json one): a number beyond their range refuses the schema.
				f.Fail("metadata", "numbers within float64's range", jsonv.Number)
			}
			t.Fields[i].Metadata = md
		}
	}
	return t, o.Err()
}

// raw is member key's value as written, null included (nil when absent): a type, which is
// read after its level.
func raw(o *jsonv.Obj, key string) *jsonv.Value {
	if v := o.Value(); v != nil && v.Kind == jsonv.Object {
		return v.Get(key)
	}
	return nil
}

func optBool(o *jsonv.Obj, key string) *bool {
	if b, ok := o.OptBool(key); ok {
		return &b
	}
	return nil
}

// maxSchemaDepth bounds nesting so that a hostile schema cannot exhaust the stack.
const maxSchemaDepth = 64

// ParseSchema parses a metaData schemaString into the table's top-level fields.
func ParseSchema(s string) ([]schema.Field, error) {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		return nil, errf.Errorf("%w: %v", ErrSchema, err)
	}
	t, err := decodeType(&v)
	if err != nil {
		return nil, errf.Errorf("%w: %v", ErrSchema, err)
	}
	if t.Type != "struct" {
		return nil, errf.Errorf("%w: top level is %q, want struct", ErrSchema, t.Type)
	}
	return parseFields(t.Fields, "", 0)
}

func parseFields(fs []jsonField, prefix string, depth int) ([]schema.Field, error) {
	out := make([]schema.Field, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		path := prefix + f.Name
		if f.Name == "" {
			return nil, errf.Errorf("%w: field without a name in %q", ErrSchema, prefix)
		}
		if low := strings.ToLower(f.Name); seen[low] {
			return nil, errf.Errorf("%w: duplicate column %q (names are case-insensitive)", ErrSchema, path)
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
		if tc := f.Metadata.Get("delta.typeChanges"); tc != nil {
			if err := applyTypeChanges(&nf, tc, path); err != nil {
				return nil, err
			}
		}
		out = append(out, nf)
	}
	return out, nil
}

func parseType(raw *jsonv.Value, path string, depth int) (schema.Field, error) {
	if depth > maxSchemaDepth {
		return schema.Field{}, errf.Errorf("%w: %q nested deeper than %d", ErrSchema, path, maxSchemaDepth)
	}
	if raw == nil {
		return schema.Field{}, errf.Errorf("%w: column %q has no type", ErrSchema, path)
	}
	if raw.Kind == jsonv.String || raw.Kind == jsonv.Null {
		t, err := primitive(raw.S, path)
		return schema.Field{Type: t}, err
	}
	t, err := decodeType(raw)
	if err != nil {
		return schema.Field{}, errf.Errorf("%w: column %q: %v", ErrSchema, path, err)
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
	return schema.Field{}, errf.Errorf("%w: column %q: unknown type %q", ErrSchema, path, t.Type)
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
		return schema.Type{Kind: schema.Variant}, nil
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
	return schema.Type{}, errf.Errorf("%w: column %q: unknown type %q", ErrSchema, path, name)
}

// Type widening (PROTOCOL.md "Type Widening", "Type Change Metadata"): a field's metadata key
// delta.typeChanges lists the type changes of the field, or with fieldPath ("element", "key",
// "value", dot-separated through nested arrays and maps) of an element, key or value inside
// it. Readers must fail on a change they do not support; the supported ones are the
// protocol's list: byte → short → int → long; float → double; byte, short, int → double;
// byte, short, int, long → decimal with room for every value; decimal(p, s) → decimal(p + k1,
// s + k2) with k1 >= k2 >= 0; date → timestamp_ntz.

// applyTypeChanges checks the changes recorded for f (a JSON list, or a string holding one)
// and records each one's fromType in Widened of the field it names.
func applyTypeChanges(f *schema.Field, raw *jsonv.Value, path string) error {
	list := raw
	if raw.Kind == jsonv.String {
		v, err := jsonv.Parse([]byte(raw.S))
		if err != nil {
			return errf.Errorf("%w: column %q: delta.typeChanges: %v", ErrSchema, path, err)
		}
		list = &v
	}
	if list.Kind != jsonv.Null && list.Kind != jsonv.Array {
		return errf.Errorf("%w: column %q: delta.typeChanges is %s, want a list", ErrSchema, path, list.Kind.String())
	}
	type change struct{ from, to, fieldPath string }
	changes := make([]change, len(list.Elems))
	for i := range list.Elems {
		c := jsonv.NewObj(&list.Elems[i], "delta.typeChanges")
		changes[i] = change{c.Str("fromType"), c.Str("toType"), c.Str("fieldPath")}
		if err := c.Err(); err != nil {
			return errf.Errorf("%w: column %q: %v", ErrSchema, path, err)
		}
	}
	for _, c := range changes {
		target, at := f, path
		if c.fieldPath != "" {
			for _, step := range strings.Split(c.fieldPath, ".") {
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
					return errf.Errorf("%w: column %q: delta.typeChanges names %q, which is not in the schema", ErrSchema, path, c.fieldPath)
				}
				target = &target.Children[k]
			}
		}
		from, err1 := primitive(c.from, at)
		to, err2 := primitive(c.to, at)
		if err1 != nil || err2 != nil || !deltaWidens(from, to) {
			return errf.Errorf("%w: typeWidening: column %q changed from %q to %q", ErrUnsupportedFeature, at, c.from, c.to)
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
