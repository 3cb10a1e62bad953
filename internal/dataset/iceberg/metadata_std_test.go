package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// The table metadata and the name mapping as encoding/json decoded them before the readers
// moved to jsonv: the oracles FuzzMetadataStd and FuzzNameMappingStd compare the readers with.

type stdMetadata struct {
	FormatVersion   int               `json:"format-version"`
	Location        string            `json:"location"`
	CurrentSchemaID *int              `json:"current-schema-id"`
	Schemas         []stdSchema       `json:"schemas"`
	Schema          *stdSchema        `json:"schema"`
	CurrentSnapshot *int64            `json:"current-snapshot-id"`
	Snapshots       []stdSnapshot     `json:"snapshots"`
	Properties      map[string]string `json:"properties"`
	PartitionSpecs  []stdSpec         `json:"partition-specs"`
	DefaultSpecID   int               `json:"default-spec-id"`
	LastSequenceNum int64             `json:"last-sequence-number"`
	SnapshotLog     []stdSnapLog      `json:"snapshot-log"`
	EncryptionKeys  []json.RawMessage `json:"encryption-keys"`
	LegacyPartSpec  []stdPartField    `json:"partition-spec"`
}

type stdSnapshot struct {
	ID           int64    `json:"snapshot-id"`
	SequenceNum  int64    `json:"sequence-number"`
	TimestampMs  int64    `json:"timestamp-ms"`
	ManifestList string   `json:"manifest-list"`
	Manifests    []string `json:"manifests"`
	SchemaID     *int     `json:"schema-id"`
}

type stdSnapLog struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

type stdPartField struct {
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

func convParts(fs []stdPartField) []PartitionField {
	if fs == nil {
		return nil
	}
	out := make([]PartitionField, len(fs))
	for i, f := range fs {
		out[i] = PartitionField(f)
	}
	return out
}

type stdSchema struct {
	ID     int        `json:"schema-id"`
	Fields []stdField `json:"fields"`
}

type stdSpec struct {
	ID     int            `json:"spec-id"`
	Fields []stdPartField `json:"fields"`
}

type stdField struct {
	ID       int             `json:"id"`
	Name     string          `json:"name"`
	Required bool            `json:"required"`
	Type     stdType         `json:"type"`
	Initial  json.RawMessage `json:"initial-default"`
}

type stdType struct {
	Prim, Kind      string
	Fields          []stdField
	ElementID       int
	Element         *stdType
	ElementRequired bool
	KeyID, ValueID  int
	Key, Value      *stdType
	ValueRequired   bool
}

func (t *stdType) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.Prim)
	}
	var o struct {
		Type            string     `json:"type"`
		Fields          []stdField `json:"fields"`
		ElementID       int        `json:"element-id"`
		Element         *stdType   `json:"element"`
		ElementRequired bool       `json:"element-required"`
		KeyID           int        `json:"key-id"`
		Key             *stdType   `json:"key"`
		ValueID         int        `json:"value-id"`
		Value           *stdType   `json:"value"`
		ValueRequired   bool       `json:"value-required"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*t = stdType{Kind: o.Type, Fields: o.Fields, ElementID: o.ElementID, Element: o.Element, ElementRequired: o.ElementRequired,
		KeyID: o.KeyID, Key: o.Key, ValueID: o.ValueID, Value: o.Value, ValueRequired: o.ValueRequired}
	switch {
	case t.Kind == "struct":
	case t.Kind == "list" && t.Element != nil:
	case t.Kind == "map" && t.Key != nil && t.Value != nil:
	default:
		return fmt.Errorf("a %q type without its parts", t.Kind)
	}
	return nil
}

// readMetadataStd is readMetadata through encoding/json.
func readMetadataStd(b []byte) (*Metadata, error) {
	var s stdMetadata
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	m := &Metadata{FormatVersion: s.FormatVersion, Location: s.Location, CurrentSchemaID: s.CurrentSchemaID,
		CurrentSnapshot: s.CurrentSnapshot, Properties: s.Properties,
		DefaultSpecID: s.DefaultSpecID, LastSequenceNum: s.LastSequenceNum, LegacyPartSpec: convParts(s.LegacyPartSpec)}
	if s.Snapshots != nil {
		m.Snapshots = make([]Snapshot, len(s.Snapshots))
		for i, x := range s.Snapshots {
			m.Snapshots[i] = Snapshot(x)
		}
	}
	if s.SnapshotLog != nil {
		m.SnapshotLog = make([]SnapshotLog, len(s.SnapshotLog))
		for i, x := range s.SnapshotLog {
			m.SnapshotLog[i] = SnapshotLog(x)
		}
	}
	if s.Schemas != nil {
		m.Schemas = make([]Schema, len(s.Schemas))
		for i := range s.Schemas {
			m.Schemas[i] = s.Schemas[i].conv()
		}
	}
	if s.Schema != nil {
		c := s.Schema.conv()
		m.Schema = &c
	}
	if s.PartitionSpecs != nil {
		m.PartitionSpecs = make([]PartitionSpec, len(s.PartitionSpecs))
		for i, p := range s.PartitionSpecs {
			m.PartitionSpecs[i] = PartitionSpec{ID: p.ID, Fields: convParts(p.Fields)}
		}
	}
	for _, k := range s.EncryptionKeys {
		m.EncryptionKeys = append(m.EncryptionKeys, []byte(k))
	}
	return m, nil
}

func (s stdSchema) conv() Schema { return Schema{ID: s.ID, Fields: convFields(s.Fields)} }

func convFields(fs []stdField) []StructField {
	if fs == nil {
		return nil
	}
	out := make([]StructField, len(fs))
	for i, f := range fs {
		out[i] = StructField{ID: f.ID, Name: f.Name, Required: f.Required, Type: f.Type.conv(), Initial: []byte(f.Initial)}
	}
	return out
}

func (t stdType) conv() Type {
	ptr := func(p *stdType) *Type {
		if p == nil {
			return nil
		}
		c := p.conv()
		return &c
	}
	return Type{Prim: t.Prim, Kind: t.Kind, Fields: convFields(t.Fields), ElementID: t.ElementID, Element: ptr(t.Element),
		ElementRequired: t.ElementRequired, KeyID: t.KeyID, ValueID: t.ValueID, Key: ptr(t.Key), Value: ptr(t.Value),
		ValueRequired: t.ValueRequired}
}

// schemaJSON reads one schema object as ParseMetadata reads an element of "schemas".
func schemaJSON(b []byte) (Schema, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return Schema{}, err
	}
	o := jsonv.NewObj(&v, "")
	s := readSchema(o)
	return s, o.Err()
}

var metadataNames = []string{"format-version", "location", "current-schema-id", "schemas", "schema",
	"current-snapshot-id", "snapshots", "properties", "partition-specs", "default-spec-id", "last-sequence-number",
	"snapshot-log", "encryption-keys", "partition-spec", "schema-id", "fields", "id", "name", "required", "type",
	"initial-default", "element-id", "element", "element-required", "key-id", "key", "value-id", "value",
	"value-required", "snapshot-id", "sequence-number", "timestamp-ms", "manifest-list", "manifests", "spec-id",
	"source-id", "field-id", "transform", "names"}

// FuzzMetadataStd: readMetadata accepts the documents encoding/json accepted and reads them
// alike, but for case-folded and repeated member names.
func FuzzMetadataStd(f *testing.F) {
	for _, p := range corpusMetadata(f) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"l","type":{"type":"list","element-id":2,"element":"int"}}]}]}`,
		`{"format-version":1,"location":"/t","schema":{"fields":[{"id":1,"name":"m","type":{"type":"map","key-id":2,"key":"string","value-id":3,"value":{"type":"struct","fields":[]},"value-required":true},"initial-default":null}]}}`,
		`{"format-version":3,"location":"/t","schemas":[null,{"fields":[null,{"type":null}]}],"properties":{"a":null},"encryption-keys":[null]}`,
		`{"schemas":[{"fields":[{"type":{"type":"list","element":null}}]}],"snapshots":[{"manifests":["a",null],"schema-id":null}]}`,
		`{"format-version":"2"}`, `{"schemas":{}}`, `[]`, `null`, `{"format-version":2.0}`, `{"partition-spec":[{"source-id":1e2}]}`,
		`{"schemas":[{"fields":[{"initial-default": {"a" : [1, 2]} }]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := jsonv.Parse(b); err == nil && v.Quirky(metadataNames) {
			return
		}
		got, err := readMetadata(b)
		want, werr := readMetadataStd(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonv %v, encoding/json %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("read differently:\n%#v\n%#v", got, want)
		}
		if _, err := ParseMetadata(b); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupportedFeature) {
			t.Fatalf("error %v wraps no sentinel", err)
		}
	})
}

// FuzzNameMappingStd: ParseNameMapping accepts the mappings encoding/json accepted and reads
// them alike.
func FuzzNameMappingStd(f *testing.F) {
	for _, s := range []string{`[{"field-id":1,"names":["id","old_id"]},{"names":["gone"]},{"field-id":2,"names":["s"],"fields":[{"field-id":1,"names":["a"]}]}]`,
		`[]`, `null`, `{}`, `[null,{"fields":null,"names":null,"field-id":null}]`, `[{"fields":[]}]`, `[{"field-id":1.5}]`, `[{"names":[1]}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := jsonv.Parse(b); err == nil && v.Quirky(metadataNames) {
			return
		}
		got, err := ParseNameMapping(b)
		var want []tablescan.NameMapping
		werr := json.Unmarshal(b, &want)
		if werr == nil && want == nil {
			werr = errors.New("not a list")
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonv %v, encoding/json %v", err, werr)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("read differently:\n%#v\n%#v", got, want)
		}
	})
}
