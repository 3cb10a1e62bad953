package iceberg

import (
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// The table metadata JSON read member by member with jsonv (not encoding/json: the wasm
// module's size budget has no room for its decoder and reflect). Members are matched exactly,
// as the spec and iceberg-rust's serde do; an absent or null member is the zero value, one of
// another type an error naming it ("schemas[0].fields[2].id: want an integer, got a string").
// The document is parsed once; nothing aliases it afterwards.

// readMetadata reads the members Metadata holds; ParseMetadata checks them.
func readMetadata(b []byte) (*Metadata, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, err
	}
	o := jsonv.NewObj(&v, "")
	m := &Metadata{
		FormatVersion:   int(o.Int("format-version")),
		Location:        o.Str("location"),
		CurrentSchemaID: optInt(o, "current-schema-id"),
		Schemas:         readSchemas(o.Objs("schemas")),
		Properties:      o.StrMap("properties"),
		DefaultSpecID:   int(o.Int("default-spec-id")),
		LastSequenceNum: o.Int("last-sequence-number"),
		LegacyPartSpec:  readPartFields(o.Objs("partition-spec")),
	}
	if o.Has("schema") {
		s := readSchema(o.Child("schema"))
		m.Schema = &s
	}
	if n, ok := o.OptInt("current-snapshot-id"); ok {
		m.CurrentSnapshot = &n
	}
	if objs := o.Objs("snapshots"); objs != nil {
		m.Snapshots = make([]Snapshot, len(objs))
		for i, so := range objs {
			m.Snapshots[i] = Snapshot{ID: so.Int("snapshot-id"), SequenceNum: so.Int("sequence-number"),
				TimestampMs: so.Int("timestamp-ms"), ManifestList: so.Str("manifest-list"),
				Manifests: so.Strs("manifests"), SchemaID: optInt(so, "schema-id")}
		}
	}
	if objs := o.Objs("partition-specs"); objs != nil {
		m.PartitionSpecs = make([]PartitionSpec, len(objs))
		for i, so := range objs {
			m.PartitionSpecs[i] = PartitionSpec{ID: int(so.Int("spec-id")), Fields: readPartFields(so.Objs("fields"))}
		}
	}
	if objs := o.Objs("snapshot-log"); objs != nil {
		m.SnapshotLog = make([]SnapshotLog, len(objs))
		for i, so := range objs {
			m.SnapshotLog[i] = SnapshotLog{TimestampMs: so.Int("timestamp-ms"), SnapshotID: so.Int("snapshot-id")}
		}
	}
	if k := o.Get("encryption-keys"); k != nil {
		if k.Kind != jsonv.Array {
			o.Fail("encryption-keys", "an array", k.Kind)
		}
		for i := range k.Elems {
			m.EncryptionKeys = append(m.EncryptionKeys, clone(k.Elems[i].Raw))
		}
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// optInt is member key as an *int (nil when absent or null).
func optInt(o *jsonv.Obj, key string) *int {
	n, ok := o.OptInt(key)
	if !ok {
		return nil
	}
	i := int(n)
	return &i
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

func readSchemas(objs []*jsonv.Obj) []Schema {
	if objs == nil {
		return nil
	}
	out := make([]Schema, len(objs))
	for i, so := range objs {
		out[i] = readSchema(so)
	}
	return out
}

func readSchema(o *jsonv.Obj) Schema {
	return Schema{ID: int(o.Int("schema-id")), Fields: readFields(o.Objs("fields"))}
}

func readPartFields(objs []*jsonv.Obj) []PartitionField {
	if objs == nil {
		return nil
	}
	out := make([]PartitionField, len(objs))
	for i, f := range objs {
		out[i] = PartitionField{SourceID: int(f.Int("source-id")), FieldID: int(f.Int("field-id")),
			Name: f.Str("name"), Transform: f.Str("transform")}
	}
	return out
}

func readFields(objs []*jsonv.Obj) []StructField {
	if objs == nil {
		return nil
	}
	out := make([]StructField, len(objs))
	for i, f := range objs {
		out[i] = StructField{ID: int(f.Int("id")), Name: f.Str("name"), Required: f.Bool("required"),
			Type: readType(f, "type")}
		// The default's JSON as written, null included: its meaning depends on the type.
		if d := f.Value().Get("initial-default"); d != nil {
			out[i].Initial = clone(d.Raw)
		}
	}
	return out
}

// readType reads member key of o as a type: a string names a primitive, an object is a
// struct, list or map with its parts. An absent type is the zero Type (ArrowFields refuses
// it); a null one is an error, as is a nested type without its parts.
func readType(o *jsonv.Obj, key string) Type {
	m := o.Value().Get(key)
	switch {
	case m == nil:
		return Type{}
	case m.Kind == jsonv.String:
		return Type{Prim: m.S}
	case m.Kind != jsonv.Object && m.Kind != jsonv.Null:
		o.Fail(key, "a string or an object", m.Kind)
		return Type{}
	}
	c := o.Child(key)
	t := Type{Kind: c.Str("type"), Fields: readFields(c.Objs("fields")),
		ElementID: int(c.Int("element-id")), Element: readTypePtr(c, "element"), ElementRequired: c.Bool("element-required"),
		KeyID: int(c.Int("key-id")), Key: readTypePtr(c, "key"),
		ValueID: int(c.Int("value-id")), Value: readTypePtr(c, "value"), ValueRequired: c.Bool("value-required")}
	switch {
	case t.Kind == "struct":
	case t.Kind == "list" && t.Element != nil:
	case t.Kind == "map" && t.Key != nil && t.Value != nil:
	default:
		c.Failf(errf.Errorf("%s: a %q type without its parts", o.Path(key), t.Kind))
	}
	return t
}

// readTypePtr is a list's or map's part (nil when absent or null).
func readTypePtr(o *jsonv.Obj, key string) *Type {
	if !o.Has(key) {
		return nil
	}
	t := readType(o, key)
	return &t
}
