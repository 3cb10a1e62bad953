package deltasession

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/variant"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// The conversions from a Delta snapshot to the table session's options. They live here, not
// in the Go host (internal/tablehost), because both it and the wasm module's Delta session
// use them: one definition of the table schema a Delta table reads with.

// arrowFields converts a Delta schema (delta.ParseSchema) into the engine's Arrow fields, the
// types the engine's Parquet decoder gives those columns: string utf8, binary, integers of
// their width, float/double, date32, timestamp µs (UTC for Delta "timestamp", zone-less for
// timestamp_ntz), decimal128 (decimal256 above 38 digits), and nested struct/list/map.
func ArrowFields(fs []schema.Field) ([]arrowipc.Field, error) {
	out := make([]arrowipc.Field, 0, len(fs))
	for _, f := range fs {
		a, err := ArrowField(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// ArrowField is one field of ArrowFields. A column-mapped field carries its physical name
// and Parquet field id in its metadata, where the table scan matches file columns by them.
func ArrowField(f schema.Field) (arrowipc.Field, error) {
	out := arrowipc.Field{Name: f.Name, Nullable: f.Nullable}
	if f.PhysicalName != "" {
		out.Metadata = append(out.Metadata, [2]string{tablescan.MetaPhysicalName, f.PhysicalName})
	}
	if f.FieldID != 0 {
		out.Metadata = append(out.Metadata, [2]string{tablescan.MetaFieldID, strconv.Itoa(int(f.FieldID))})
	}
	t := &out.Type
	switch f.Type.Kind {
	case schema.Bool:
		t.ID = arrowipc.Bool
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		t.ID, t.Signed = arrowipc.Int, true
		t.BitWidth = map[schema.Kind]int{schema.Int8: 8, schema.Int16: 16, schema.Int32: 32, schema.Int64: 64}[f.Type.Kind]
	case schema.Float32:
		t.ID, t.BitWidth = arrowipc.Float, 32
	case schema.Float64:
		t.ID, t.BitWidth = arrowipc.Float, 64
	case schema.String:
		t.ID = arrowipc.Utf8
	case schema.Binary:
		t.ID = arrowipc.Binary
	case schema.Date:
		t.ID = arrowipc.Date32
	case schema.Timestamp:
		t.ID, t.Unit = arrowipc.Timestamp, arrowipc.Microsecond
		if f.Type.Unit != prune.Micro {
			return out, errf.Errorf("%w: column %q: timestamp unit %s", delta.ErrUnsupportedFeature, f.Name, f.Type.Unit)
		}
		if f.Type.UTC {
			t.TZ = "UTC"
		}
	case schema.Decimal:
		t.ID, t.BitWidth, t.Precision, t.Scale = arrowipc.Decimal, 128, int(f.Type.Precision), int(f.Type.Scale)
		if f.Type.Precision > 38 {
			t.BitWidth = 256
		}
	case schema.Struct:
		t.ID = arrowipc.Struct
		kids, err := ArrowFields(f.Children)
		if err != nil {
			return out, err
		}
		t.Fields = kids
	case schema.List:
		el, err := ArrowField(f.Children[0])
		if err != nil {
			return out, err
		}
		t.ID, t.Elem = arrowipc.List, &el
	case schema.Map:
		kids, err := ArrowFields(f.Children)
		if err != nil {
			return out, err
		}
		t.ID = arrowipc.Map
		t.Elem = &arrowipc.Field{Name: "key_value", Type: arrowipc.DataType{ID: arrowipc.Struct, Fields: kids}}
	case schema.Variant:
		*t = variant.ArrowType
		out.Metadata = append(out.Metadata, variant.ArrowMeta...)
	default:
		return out, errf.Errorf("%w: column %q: type %s", delta.ErrUnsupportedFeature, f.Name, f.Type)
	}
	return out, nil
}

// statTypes is the prune type of each leaf of fs by dotted path (the paths Delta statistics
// and predicates use; struct fields are walked, lists and maps have no statistics), for
// binding the predicate over a file's statistics.
func StatTypes(fs []schema.Field, prefix string, out map[string]prune.ColumnType) map[string]prune.ColumnType {
	for _, f := range fs {
		if f.Type.Kind == schema.Struct {
			StatTypes(f.Children, prefix+f.Name+".", out)
		} else if t, ok := f.Type.Prune(); ok {
			out[prefix+f.Name] = t
		}
	}
	return out
}

// fileStats materializes a file's statistics lookup (delta.Snapshot.FileStats) for the
// columns of types, as the plain data the table session takes.
func FileStats(lookup func(string) (prune.ColStats, bool), types map[string]prune.ColumnType) map[string]prune.ColStats {
	out := map[string]prune.ColStats{}
	for path := range types {
		if c, ok := lookup(path); ok {
			out[path] = c
		}
	}
	return out
}

// Snapshot is what a Delta session ends with (pq_snapshot's JSON): the table at Version as
// the options of a table session. Table is tablescan.Options without the scan options: the
// host adds its columns/where/limit, makes each Files[i].Path absolute (the table root's URL
// + the escaped relative path given; a local host opens Paths[i] under the root instead) and
// sets each file's Version (its validator), then opens the table session with it.
type Snapshot struct {
	Version int64             `json:"version"`
	Table   tablescan.Options `json:"table"`
	// Paths are the files' decoded paths relative to the root (Table.Files[i].Path escaped).
	Paths []string `json:"paths"`
	// Absolute marks the files the log names by an absolute URI (file:…, https://…): their
	// Paths[i] and Table.Files[i].Path are the URI as written, for the host to resolve and to
	// check against what the open may reach before it fetches anything. Nil when none is.
	Absolute []bool `json:"absolute,omitempty"`
	// Metadata is the table metadata file an Iceberg snapshot was read from (relative to the
	// root): a later session given it reads the same snapshot without locating it again.
	Metadata string `json:"metadata,omitempty"`
	// Partitions are an Iceberg snapshot's files' partition values as written in their
	// manifests, "name=value/…" in name order, for display.
	Partitions []string `json:"partitions,omitempty"`
	// State is the replayed log (Options.KeepState), for a later session's Options.Resume;
	// Resumed says this snapshot was replayed from such a state; CommitsRead counts the
	// commits read after it (the state's version is Version-CommitsRead).
	State       []byte `json:"state,omitempty"`
	Resumed     bool   `json:"resumed,omitempty"`
	CommitsRead int64  `json:"commitsRead,omitempty"`
}

// NewSnapshot builds the table session's options from a replayed snapshot, as delta.go does
// for the Go host: the data columns in schemaString order, then the partition columns in
// partitionColumns order; partition values and statistics per file; Delta's reading rules
// (case-insensitive names, UTC timestamps that Spark wrote zone-less as INT96).
func NewSnapshot(snap *delta.Snapshot) (*Snapshot, error) {
	data, err := ArrowFields(snap.DataSchema())
	if err != nil {
		return nil, err
	}
	for _, pc := range snap.PartitionColumns {
		for _, sf := range snap.Schema {
			if strings.EqualFold(sf.Name, pc.Name) {
				af, err := ArrowField(sf)
				if err != nil {
					return nil, err
				}
				data = append(data, af)
			}
		}
	}
	if len(data) == 0 {
		return nil, errf.Errorf("%w: the Delta schema has no columns", delta.ErrSchema)
	}
	types := StatTypes(snap.Schema, "", map[string]prune.ColumnType{})
	out := &Snapshot{Version: snap.Version, Paths: []string{}, Table: tablescan.Options{Files: []tablescan.File{}, Table: data,
		PartitionColumns: snap.PartitionColumns, StatTypes: types, NoHive: true, ZonelessUTC: true, FoldCase: true}}
	for i, f := range snap.Files {
		path := pathenc.EscapePath(f.Path)
		if f.Absolute {
			if out.Absolute == nil {
				out.Absolute = make([]bool, len(snap.Files))
			}
			out.Absolute[i], path = true, f.Path
		}
		out.Paths = append(out.Paths, f.Path)
		out.Table.Files = append(out.Table.Files, tablescan.File{Path: path, Size: f.Size,
			Partition: f.Partition, Stats: FileStats(snap.FileStats(i), types), Rows: f.Rows()})
	}
	return out, nil
}
