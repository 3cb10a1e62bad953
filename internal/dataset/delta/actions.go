// Package delta reads Delta Lake tables as pure functions: parsing _last_checkpoint and commit
// files (newline-delimited JSON actions), replaying a checkpoint's actions and the commits
// after it to the live file set, the table schema, typed partition values and per-file
// statistics, the reader-feature check, and the planning of which log objects to fetch (from
// a listing of _delta_log/, or on a plain CDN by probing versions until a 404).
//
// It does no I/O. The integrator fetches what the planner names, reads checkpoint Parquet with
// pqscan's engine and turns its rows into Actions with ActionsFromRows, and feeds everything to
// a Replay. This is delta-kernel-rs' split (the kernel replays, an engine reads files), with the
// kernel's order of checks: protocol first, then the files. References: delta-io/delta
// PROTOCOL.md (actions, reconciliation, checkpoints, per-file statistics, partition value
// serialization, table features); delta-kernel-rs kernel/src/log_replay.rs, table_features.
package delta

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Action is one log action; exactly one field is set.
type Action struct {
	Add                *Add
	Remove             *Remove
	Metadata           *Metadata
	Protocol           *Protocol
	CommitInfo         json.RawMessage // kept raw: provenance only, never needed to read
	Txn                *Txn
	DomainMetadata     *DomainMetadata
	CDC                *CDC
	CheckpointMetadata *CheckpointMetadata
	Sidecar            *Sidecar
}

// Add adds a logical file (path + deletion vector) to the table.
type Add struct {
	Path             string             `json:"path"`
	PartitionValues  map[string]*string `json:"partitionValues"`
	Size             int64              `json:"size"`
	ModificationTime int64              `json:"modificationTime"`
	DataChange       bool               `json:"dataChange"`
	Stats            *string            `json:"stats"`
	Tags             map[string]*string `json:"tags"`
	DeletionVector   *DeletionVector    `json:"deletionVector"`
	BaseRowID        *int64             `json:"baseRowId"`
}

// Remove removes a logical file; it cancels the Add with the same path and deletion vector.
type Remove struct {
	Path              string             `json:"path"`
	DeletionTimestamp *int64             `json:"deletionTimestamp"`
	DataChange        bool               `json:"dataChange"`
	PartitionValues   map[string]*string `json:"partitionValues"`
	Size              *int64             `json:"size"`
	DeletionVector    *DeletionVector    `json:"deletionVector"`
}

// DeletionVector describes soft-deleted rows of a data file (PROTOCOL.md "Deletion Vectors").
type DeletionVector struct {
	StorageType    string `json:"storageType"` // "u" (relative, UUID-derived), "p" (path), "i" (inline)
	PathOrInlineDv string `json:"pathOrInlineDv"`
	Offset         *int32 `json:"offset"`
	SizeInBytes    int32  `json:"sizeInBytes"`
	Cardinality    int64  `json:"cardinality"`
}

// UniqueID is the protocol's identifier of a deletion vector: storageType + pathOrInlineDv,
// plus "@offset" when an offset is given. With the data file's path it keys a logical file.
func (dv *DeletionVector) UniqueID() string {
	if dv == nil {
		return ""
	}
	id := dv.StorageType + dv.PathOrInlineDv
	if dv.Offset != nil {
		id += fmt.Sprintf("@%d", *dv.Offset)
	}
	return id
}

// Metadata is the table's metaData action.
type Metadata struct {
	ID               string             `json:"id"`
	Name             *string            `json:"name"`
	Description      *string            `json:"description"`
	Format           Format             `json:"format"`
	SchemaString     string             `json:"schemaString"`
	PartitionColumns []string           `json:"partitionColumns"`
	Configuration    map[string]*string `json:"configuration"`
	CreatedTime      *int64             `json:"createdTime"`
}

// Format is the data file format of a table (always "parquet").
type Format struct {
	Provider string             `json:"provider"`
	Options  map[string]*string `json:"options"`
}

// Config returns a configuration value ("" when absent or null).
func (m *Metadata) Config(key string) string {
	if v := m.Configuration[key]; v != nil {
		return *v
	}
	return ""
}

// Protocol is the table's protocol action.
type Protocol struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures"`
	WriterFeatures   []string `json:"writerFeatures"`
}

// Txn is an application transaction identifier (setTransaction).
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated"`
}

// DomainMetadata is a named configuration blob; readers may ignore it.
type DomainMetadata struct {
	Domain        string `json:"domain"`
	Configuration string `json:"configuration"`
	Removed       bool   `json:"removed"`
}

// CDC is a change data file; it is not part of the table's state.
type CDC struct {
	Path            string             `json:"path"`
	PartitionValues map[string]*string `json:"partitionValues"`
	Size            int64              `json:"size"`
	DataChange      bool               `json:"dataChange"`
}

// CheckpointMetadata appears once in a V2 checkpoint.
type CheckpointMetadata struct {
	Version int64              `json:"version"`
	Tags    map[string]*string `json:"tags"`
}

// Sidecar names a Parquet file under _delta_log/_sidecars/ holding part of a V2 checkpoint's
// add and remove actions.
type Sidecar struct {
	Path             string `json:"path"`
	SizeInBytes      int64  `json:"sizeInBytes"`
	ModificationTime int64  `json:"modificationTime"`
}

// actionJSON is one line of a commit; pointers tell which action is present.
type actionJSON struct {
	Add                *Add                `json:"add"`
	Remove             *Remove             `json:"remove"`
	Metadata           *Metadata           `json:"metaData"`
	Protocol           *Protocol           `json:"protocol"`
	CommitInfo         json.RawMessage     `json:"commitInfo"`
	Txn                *Txn                `json:"txn"`
	DomainMetadata     *DomainMetadata     `json:"domainMetadata"`
	CDC                *CDC                `json:"cdc"`
	CheckpointMetadata *CheckpointMetadata `json:"checkpointMetadata"`
	Sidecar            *Sidecar            `json:"sidecar"`
}

// ParseCommit parses a commit file (or a JSON V2 checkpoint): one action per line, blank lines
// ignored, unknown action kinds ignored (the protocol lets writers add them). name is the
// file's name for errors, which give its 1-based line number.
func ParseCommit(name string, data []byte) ([]Action, error) {
	var out []Action
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		a, ok, err := parseAction(l)
		if err != nil {
			return nil, fmt.Errorf("%w: %s line %d: %v", ErrMalformed, name, line, err)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// parseAction decodes one JSON object; ok is false for an action kind this reader ignores.
func parseAction(l []byte) (Action, bool, error) {
	if l[0] != '{' {
		return Action{}, false, fmt.Errorf("not a JSON object")
	}
	var j actionJSON
	if err := json.Unmarshal(l, &j); err != nil {
		return Action{}, false, err
	}
	if string(j.CommitInfo) == "null" {
		j.CommitInfo = nil
	}
	a := Action{Add: j.Add, Remove: j.Remove, Metadata: j.Metadata, Protocol: j.Protocol, CommitInfo: j.CommitInfo,
		Txn: j.Txn, DomainMetadata: j.DomainMetadata, CDC: j.CDC, CheckpointMetadata: j.CheckpointMetadata, Sidecar: j.Sidecar}
	n := 0
	for _, set := range []bool{a.Add != nil, a.Remove != nil, a.Metadata != nil, a.Protocol != nil, a.CommitInfo != nil,
		a.Txn != nil, a.DomainMetadata != nil, a.CDC != nil, a.CheckpointMetadata != nil, a.Sidecar != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return Action{}, false, nil
	case n > 1:
		return Action{}, false, fmt.Errorf("%d actions on one line", n)
	}
	switch {
	case a.Add != nil && a.Add.Path == "", a.Remove != nil && a.Remove.Path == "", a.CDC != nil && a.CDC.Path == "",
		a.Sidecar != nil && a.Sidecar.Path == "":
		return Action{}, false, fmt.Errorf("action without a path")
	case a.Add != nil && a.Add.Size < 0:
		return Action{}, false, fmt.Errorf("add %q: negative size %d", a.Add.Path, a.Add.Size)
	case a.Metadata != nil && a.Metadata.SchemaString == "":
		return Action{}, false, fmt.Errorf("metaData without schemaString")
	case a.Protocol != nil && a.Protocol.MinReaderVersion < 1:
		return Action{}, false, fmt.Errorf("protocol minReaderVersion %d", a.Protocol.MinReaderVersion)
	}
	return a, true, nil
}

// LastCheckpoint is `_delta_log/_last_checkpoint`: a hint to the newest checkpoint.
type LastCheckpoint struct {
	Version      int64         `json:"version"`
	Size         int64         `json:"size"`
	Parts        *int          `json:"parts"`
	SizeInBytes  *int64        `json:"sizeInBytes"`
	NumOfAddFile *int64        `json:"numOfAddFiles"`
	V2Checkpoint *V2Checkpoint `json:"v2Checkpoint"`
	Checksum     string        `json:"checksum"`
}

// V2Checkpoint is the UUID-named checkpoint a _last_checkpoint may point to (delta-rs and
// Spark write it; not in every protocol revision, so optional).
type V2Checkpoint struct {
	Path        string `json:"path"`
	SizeInBytes int64  `json:"sizeInBytes"`
}

// ParseLastCheckpoint parses _last_checkpoint. The checksum is not verified (it only guards
// against torn writes of the hint; a wrong hint fails later as a missing or bad checkpoint).
func ParseLastCheckpoint(data []byte) (*LastCheckpoint, error) {
	var lc LastCheckpoint
	if err := json.Unmarshal(bytes.TrimSpace(data), &lc); err != nil {
		return nil, fmt.Errorf("%w: _last_checkpoint: %v", ErrMalformed, err)
	}
	if lc.Version < 0 || lc.Parts != nil && (*lc.Parts < 1 || *lc.Parts > 100000) {
		return nil, fmt.Errorf("%w: _last_checkpoint: version %d, parts %v", ErrMalformed, lc.Version, lc.Parts)
	}
	if lc.V2Checkpoint != nil {
		if _, ok := ParseLogName(lc.V2Checkpoint.Path); !ok {
			return nil, fmt.Errorf("%w: _last_checkpoint: v2Checkpoint path %q", ErrMalformed, lc.V2Checkpoint.Path)
		}
	}
	return &lc, nil
}
