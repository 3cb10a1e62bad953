// Package iceberg holds the pure building blocks of the Iceberg table reader (Iceberg table
// spec, format versions 1 to 3): table metadata JSON, the metadata file a folder's version
// hint or listing points at, a table location's paths mapped onto the folder the table was
// read from, the manifest list and manifest entries (from internal/avro), and Iceberg types as
// the engine's Arrow fields matched to file columns by field id. It does no I/O: the session
// (internal/dataset/icebergsession) asks its host for the objects.
//
// Pruning (metrics.go, transform.go, bounds.go), deletes (deletes.go, puffin.go) and the name
// mapping (namemapping.go) are here too, and the identity partition values a file's missing
// columns read as (Pruner.Identity). Not here: time travel by a named ref (a branch or tag),
// and filling a column a file lacks from its initial-default.
package iceberg

import (
	"time"

	"github.com/pqscan/pqscan/internal/errf"
)

// Metadata is the table metadata file (spec § Table Metadata), the fields this reader uses.
// The members are read by their kebab-case names, exactly as the spec spells them (the
// decoder is metadata_read.go).
type Metadata struct {
	FormatVersion   int               // format-version
	Location        string            // location
	CurrentSchemaID *int              // current-schema-id
	Schemas         []Schema          // schemas
	Schema          *Schema           // schema (v1: the only schema)
	CurrentSnapshot *int64            // current-snapshot-id
	Snapshots       []Snapshot        // snapshots
	Properties      map[string]string // properties
	PartitionSpecs  []PartitionSpec   // partition-specs
	DefaultSpecID   int               // default-spec-id
	LastSequenceNum int64             // last-sequence-number
	SnapshotLog     []SnapshotLog     // snapshot-log
	EncryptionKeys  [][]byte          // encryption-keys, each key's JSON as written
	LegacyPartSpec  []PartitionField  // partition-spec (v1: the only spec's fields)
}

// Schema is one of the table's schemas (a struct type with an id).
type Schema struct {
	ID     int           // schema-id
	Fields []StructField // fields
}

// StructField is a field of a struct type, with its field id.
type StructField struct {
	ID       int    // id
	Name     string // name
	Required bool   // required
	Type     Type   // type
	// Initial is the initial-default's JSON as written ("null" when null, nil when absent),
	// for ParseDefault, which knows the type it reads.
	Initial []byte
}

// Type is an Iceberg type: Prim is a primitive's name ("int", "decimal(9,2)", "fixed[16]"),
// else Kind is "struct", "list" or "map" with its parts. In JSON a primitive is a string, a
// nested type an object with "type" and its parts' members.
type Type struct {
	Prim string
	Kind string // type
	// Fields of a struct (fields).
	Fields []StructField
	// Element of a list (element-id, element, element-required); Key and Value of a map
	// (key-id, key, value-id, value, value-required).
	ElementID       int
	Element         *Type
	ElementRequired bool
	KeyID, ValueID  int
	Key, Value      *Type
	ValueRequired   bool
}

// Snapshot is one snapshot of the table.
type Snapshot struct {
	ID           int64    // snapshot-id
	SequenceNum  int64    // sequence-number
	TimestampMs  int64    // timestamp-ms
	ManifestList string   // manifest-list
	Manifests    []string // manifests (v1 without a manifest list)
	SchemaID     *int     // schema-id
}

// SnapshotLog is one entry of snapshot-log.
type SnapshotLog struct {
	TimestampMs int64 // timestamp-ms
	SnapshotID  int64 // snapshot-id
}

// PartitionSpec is one partition spec.
type PartitionSpec struct {
	ID     int              // spec-id
	Fields []PartitionField // fields
}

// PartitionField is one field of a partition spec.
type PartitionField struct {
	SourceID  int    // source-id
	FieldID   int    // field-id
	Name      string // name
	Transform string // transform
}

// ParseMetadata reads a table metadata file.
func ParseMetadata(b []byte) (*Metadata, error) {
	m, err := readMetadata(b)
	if err != nil {
		return nil, errf.Errorf("%w: %v", ErrMalformed, err)
	}
	switch {
	case m.FormatVersion < 1 || m.FormatVersion > 3:
		return nil, errf.Errorf("%w: format-version %d", ErrUnsupportedFeature, m.FormatVersion)
	case m.Location == "":
		return nil, errf.Errorf("%w: no location", ErrMalformed)
	case len(m.EncryptionKeys) > 0:
		return nil, errf.Errorf("%w: encryption keys", ErrUnsupportedFeature)
	}
	if len(m.Schemas) == 0 && m.Schema != nil {
		m.Schemas = []Schema{*m.Schema}
		if m.CurrentSchemaID == nil {
			m.CurrentSchemaID = &m.Schema.ID
		}
	}
	if len(m.Schemas) == 0 {
		return nil, errf.Errorf("%w: no schema", ErrMalformed)
	}
	return m, nil
}

// SnapshotByID is the snapshot with id, or nil.
func (m *Metadata) SnapshotByID(id int64) *Snapshot {
	for i := range m.Snapshots {
		if m.Snapshots[i].ID == id {
			return &m.Snapshots[i]
		}
	}
	return nil
}

// Current is the snapshot to read: id when not nil, else the current one. It is nil (and no
// error) for a table without a current snapshot (created, never written: an empty table).
func (m *Metadata) Current(id *int64) (*Snapshot, error) {
	want := m.CurrentSnapshot
	if id != nil {
		want = id
	}
	if want == nil || *want == -1 && id == nil {
		return nil, nil
	}
	s := m.SnapshotByID(*want)
	if s == nil {
		return nil, errf.Errorf("%w: %d", ErrSnapshotNotFound, *want)
	}
	return s, nil
}

// AsOf is the snapshot that was current at ms (milliseconds since the epoch): the latest
// snapshot-log entry at or before it (the log records rollbacks, which the snapshots' own
// timestamps do not), else, for a table without a log, the latest snapshot by timestamp-ms.
// A time before the first snapshot is ErrSnapshotNotFound.
func (m *Metadata) AsOf(ms int64) (*Snapshot, error) {
	var id *int64
	var at int64
	for _, e := range m.SnapshotLog {
		if e.TimestampMs <= ms && (id == nil || e.TimestampMs >= at) {
			id, at = &e.SnapshotID, e.TimestampMs
		}
	}
	if len(m.SnapshotLog) == 0 {
		for _, s := range m.Snapshots {
			if s.TimestampMs <= ms && (id == nil || s.TimestampMs >= at) {
				id, at = &s.ID, s.TimestampMs
			}
		}
	}
	if id == nil {
		return nil, errf.Errorf("%w: none at or before %s (the first is later)", ErrSnapshotNotFound, time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
	}
	return m.Current(id)
}

// SchemaOf is the schema a snapshot is read with: the table's current schema (a renamed
// column reads under its new name, whatever schema the snapshot was written with), or, when
// travel asks for an older snapshot, the snapshot's own schema-id if it names one.
func (m *Metadata) SchemaOf(s *Snapshot, travel bool) (*Schema, error) {
	id := m.CurrentSchemaID
	if travel && s != nil && s.SchemaID != nil {
		id = s.SchemaID
	}
	if id == nil {
		return &m.Schemas[len(m.Schemas)-1], nil
	}
	for i := range m.Schemas {
		if m.Schemas[i].ID == *id {
			return &m.Schemas[i], nil
		}
	}
	return nil, errf.Errorf("%w: no schema with id %d", ErrMalformed, *id)
}
