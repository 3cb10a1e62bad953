package delta

import (
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
)

// Replay reconstructs a snapshot from a checkpoint's actions and the commits after it
// (PROTOCOL.md "Action Reconciliation"): the latest protocol and metaData win; a logical file
// is keyed by its path and deletion vector id, an add makes it live and a later remove with
// the same key cancels it. Actions come from any source: ParseCommit for JSON commits and V2
// JSON checkpoints, ActionsFromRows for checkpoint Parquet rows decoded by the engine.
//
// Call order: Checkpoint (any number of times for the parts of one checkpoint, each with the
// same version), Sidecar for every sidecar the checkpoint names, then Commit for each version
// in order (or Compacted for a range of them), then Snapshot. A Replay is not safe for concurrent use.
type Replay struct {
	version    int64 // last applied version; -1 before any
	committed  bool
	checkpoint bool
	protocol   *Protocol
	metadata   *Metadata
	files      map[fileKey]*entry
	wanted     map[string]bool // sidecars named by the checkpoint
	got        map[string]bool
}

type fileKey struct{ path, dv string }

type entry struct {
	add     *Add
	version int64
}

// NewReplay returns an empty replay.
func NewReplay() *Replay {
	return &Replay{version: -1, files: map[fileKey]*entry{}, wanted: map[string]bool{}, got: map[string]bool{}}
}

// Checkpoint applies (part of) the checkpoint at version. Removes in a checkpoint are
// tombstones for VACUUM and are ignored; sidecar actions are remembered and must be supplied.
func (r *Replay) Checkpoint(version int64, actions []Action) error {
	if r.committed || version < 0 || r.checkpoint && version != r.version {
		return errf.Errorf("%w: checkpoint %d after version %d", ErrOrder, version, r.version)
	}
	r.checkpoint, r.version = true, version
	for _, a := range actions {
		switch {
		case a.Sidecar != nil:
			r.wanted[sidecarName(a.Sidecar.Path)] = true
		case a.Remove != nil:
		default:
			r.apply(a, version)
		}
	}
	return nil
}

// Sidecar applies the actions of one sidecar file named by the checkpoint (name as
// SidecarNames returns it).
func (r *Replay) Sidecar(name string, actions []Action) error {
	if !r.wanted[name] || r.committed {
		return errf.Errorf("%w: sidecar %s not named by the checkpoint", ErrOrder, name)
	}
	r.got[name] = true
	for _, a := range actions {
		if a.Add != nil {
			r.apply(a, r.version)
		}
	}
	return nil
}

// Commit applies the commit of version, which must follow the previous one (ErrVersionGap).
func (r *Replay) Commit(version int64, actions []Action) error {
	if version != r.version+1 {
		return errf.Errorf("%w: commit %s after version %d", ErrVersionGap, CommitName(version), r.version)
	}
	r.committed, r.version = true, version
	for _, a := range actions {
		r.apply(a, version)
	}
	return nil
}

// Compacted applies a log compaction file covering the commits from..to in place of them
// (PROTOCOL.md "Log Compaction Files": their actions reconciled); from must follow the
// previous version.
func (r *Replay) Compacted(from, to int64, actions []Action) error {
	if from != r.version+1 || to < from {
		return errf.Errorf("%w: compaction %d..%d after version %d", ErrVersionGap, from, to, r.version)
	}
	r.committed, r.version = true, to
	for _, a := range actions {
		r.apply(a, to)
	}
	return nil
}

func (r *Replay) apply(a Action, version int64) {
	switch {
	case a.Add != nil:
		r.files[fileKey{a.Add.Path, a.Add.DeletionVector.UniqueID()}] = &entry{add: a.Add, version: version}
	case a.Remove != nil:
		delete(r.files, fileKey{a.Remove.Path, a.Remove.DeletionVector.UniqueID()})
	case a.Metadata != nil:
		r.metadata = a.Metadata
	case a.Protocol != nil:
		r.protocol = a.Protocol
	}
}

// File is a live data file of a snapshot.
type File struct {
	// Path is the file's key relative to the table root, percent-decoded from the log's URI
	// form ("letter=%2F%2520%25f/…" in the log is the directory `letter=%2F%20%25f`). Build a
	// URL with pathenc.EscapePath. When Absolute, Path is the log's URI as written.
	Path             string
	Absolute         bool
	Size             int64
	ModificationTime int64
	Version          int64        // the version that added it (the checkpoint's for checkpoint files)
	Partition        []hive.Value // one per Snapshot.PartitionColumns
	Stats            *Stats       // nil: unknown (absent or unparseable)
	// DeletionVector, when not nil, names the rows of the file that are deleted (dv.go): a
	// reader fetches and applies it. Stats still describe every row of the file, deleted ones
	// included (bounds, not values: Delta writers mark them tightBounds=false).
	DeletionVector *DeletionVector
}

// Rows is the file's live row count: its statistics' numRecords less the rows its deletion
// vector removes; 0 means unknown (a table session then reads the footer when it needs the
// count: tablescan.File.Rows) or none left.
func (f *File) Rows() int64 {
	if f.Stats == nil || f.Stats.NumRecords <= 0 {
		return 0
	}
	if f.DeletionVector != nil {
		return max(0, f.Stats.NumRecords-f.DeletionVector.Cardinality)
	}
	return f.Stats.NumRecords
}

// Snapshot is a table at one version.
type Snapshot struct {
	Version  int64
	Protocol Protocol
	Metadata Metadata
	// Schema is the table schema from schemaString, partition columns included, in its order.
	Schema []schema.Field
	// PartitionColumns are typed for prune, in partitionColumns order.
	PartitionColumns []hive.Column
	Files            []File // sorted by path
}

// Snapshot checks the replayed state and builds the snapshot: protocol and metadata present
// and supported, every sidecar supplied, deletion vector descriptors valid, partition values
// typed, statistics parsed.
func (r *Replay) Snapshot() (*Snapshot, error) {
	switch {
	case r.version < 0:
		return nil, errf.Errorf("%w: nothing replayed", ErrNotATable)
	case r.protocol == nil:
		return nil, errf.Errorf("%w (version %d)", ErrNoProtocol, r.version)
	case r.metadata == nil:
		return nil, errf.Errorf("%w (version %d)", ErrNoMetadata, r.version)
	}
	for name := range r.wanted {
		if !r.got[name] {
			return nil, errf.Errorf("%w: sidecar %s of checkpoint %d", ErrMissingFile, name, r.version)
		}
	}
	if err := CheckProtocol(r.protocol, r.metadata); err != nil {
		return nil, err
	}
	fields, err := ParseSchema(r.metadata.SchemaString)
	if err != nil {
		return nil, err
	}
	if err := applyColumnMapping(fields, r.metadata.Config("delta.columnMapping.mode")); err != nil {
		return nil, err
	}
	s := &Snapshot{Version: r.version, Protocol: *r.protocol, Metadata: *r.metadata, Schema: fields}
	var partKeys []string // the partitionValues key of each partition column (column mapping)
	for _, pc := range r.metadata.PartitionColumns {
		i := fieldIndex(fields, pc)
		if i < 0 {
			return nil, errf.Errorf("%w: partition column %q is not in the schema", ErrSchema, pc)
		}
		t, ok := fields[i].Type.Prune()
		if !ok {
			return nil, errf.Errorf("%w: partition column %q has nested type %s", ErrSchema, pc, fields[i].Type)
		}
		s.PartitionColumns = append(s.PartitionColumns, hive.Column{Name: fields[i].Name, Type: t})
		partKeys = append(partKeys, fields[i].Physical())
	}
	data := s.DataSchema()
	for _, e := range r.files {
		a := e.add
		f := File{Path: a.Path, Size: a.Size, ModificationTime: a.ModificationTime, Version: e.version, DeletionVector: a.DeletionVector}
		if dv := a.DeletionVector; dv != nil {
			if err := dv.Check(a.Path); err != nil {
				return nil, err
			}
		}
		if IsAbsolute(a.Path) {
			f.Absolute = true
		} else {
			f.Path = pathenc.Unescape(a.Path)
		}
		for c, pc := range s.PartitionColumns {
			v, err := partitionValue(a.PartitionValues, partKeys[c], pc)
			if err != nil {
				return nil, errf.Errorf("%w: file %s: %w", ErrPartition, a.Path, err)
			}
			f.Partition = append(f.Partition, v)
		}
		if a.Stats != nil && *a.Stats != "" {
			f.Stats, _ = ParseStats(*a.Stats, data) // unparseable statistics are unknown
		}
		if dv := a.DeletionVector; dv != nil && f.Stats != nil && f.Stats.NumRecords >= 0 && dv.Cardinality > f.Stats.NumRecords {
			return nil, errf.Errorf("%w: file %s: its deletion vector removes %d rows of %d", ErrMalformed, a.Path, dv.Cardinality, f.Stats.NumRecords)
		}
		s.Files = append(s.Files, f)
	}
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	return s, nil
}

// partitionValue types one partition value, found under key (the column's physical name,
// columnmapping.go); a missing key, a JSON null and an empty string are null (PROTOCOL.md
// "Partition Value Serialization"). Keys match case-insensitively as Delta column names do.
func partitionValue(pv map[string]*string, key string, c hive.Column) (hive.Value, error) {
	raw, ok := pv[key]
	if !ok {
		for k, v := range pv {
			if strings.EqualFold(k, key) {
				raw, ok = v, true
			}
		}
	}
	if !ok || raw == nil || *raw == "" {
		return hive.Value{Null: true}, nil
	}
	if c.Type.Kind == prune.Timestamp {
		if ts, ok := parseTimestamp(*raw, c.Type.Unit, c.Type.UTC); ok {
			return hive.Value{V: prune.TimestampValue(ts)}, nil
		}
	}
	v, err := pvalue.Parse(*raw, c.Type)
	if err != nil {
		return hive.Value{}, errf.Errorf("column %q: %w", c.Name, err)
	}
	return hive.Value{V: v}, nil
}

func fieldIndex(fields []schema.Field, name string) int {
	for i := range fields {
		if strings.EqualFold(fields[i].Name, name) {
			return i
		}
	}
	return -1
}

// IsAbsolute reports whether a log path is a URI with a scheme (s3://…, file:/…) rather than
// a path relative to the table root.
func IsAbsolute(p string) bool {
	i := strings.IndexByte(p, ':')
	if i <= 0 || strings.IndexByte(p[:i], '/') >= 0 {
		return false
	}
	for _, c := range p[:i] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// DataSchema returns the columns stored in the data files: the schema without the partition
// columns (Delta does not write partition columns into files).
func (s *Snapshot) DataSchema() []schema.Field {
	var out []schema.Field
	for _, f := range s.Schema {
		part := false
		for _, pc := range s.PartitionColumns {
			part = part || strings.EqualFold(pc.Name, f.Name)
		}
		if !part {
			out = append(out, f)
		}
	}
	return out
}

// FileStats returns the statistics lookup prune.Bound.MayMatch takes for file i: partition
// columns answer from the partition values, data columns from the file's statistics, and
// anything else is unknown.
func (s *Snapshot) FileStats(i int) func(path string) (prune.ColStats, bool) {
	f := &s.Files[i]
	return func(path string) (prune.ColStats, bool) {
		for c, pc := range s.PartitionColumns {
			if pc.Name == path {
				return hive.ColStats(f.Partition[c]), true
			}
		}
		return f.Stats.Column(path)
	}
}

// CheckFiles reports the first live file that exists says is absent, as ErrMissingFile (for a
// host that listed the table and can tell without a request).
func (s *Snapshot) CheckFiles(exists func(path string) bool) error {
	for _, f := range s.Files {
		if !exists(f.Path) {
			return errf.Errorf("%w: %s (added in version %d)", ErrMissingFile, f.Path, f.Version)
		}
	}
	return nil
}
