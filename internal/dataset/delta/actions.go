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
	"errors"
	"math"
	"strconv"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// Action is one log action; exactly one field is set.
type Action struct {
	Add                *Add
	Remove             *Remove
	Metadata           *Metadata
	Protocol           *Protocol
	CommitInfo         []byte // kept raw (its JSON): provenance only, never needed to read
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
		id += "@" + strconv.Itoa(int(*dv.Offset))
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
			return nil, errf.Errorf("%w: %s line %d: %v", ErrMalformed, name, line, err)
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
		return Action{}, false, errors.New("not a JSON object")
	}
	v, err := jsonv.Parse(l)
	if err != nil {
		return Action{}, false, err
	}
	return decodeAction(&v)
}

// decodeAction reads one action object. Member names match exactly, as in the protocol and
// delta-kernel-rs' serde reader; a member of the wrong type refuses the action.
func decodeAction(v *jsonv.Value) (Action, bool, error) {
	o := jsonv.NewObj(v, "")
	var a Action
	n := 0
	if o.Has("add") {
		a.Add, n = decodeAdd(o.Child("add")), n+1
	}
	if o.Has("remove") {
		a.Remove, n = decodeRemove(o.Child("remove")), n+1
	}
	if o.Has("metaData") {
		a.Metadata, n = decodeMetadata(o.Child("metaData")), n+1
	}
	if o.Has("protocol") {
		a.Protocol, n = decodeProtocol(o.Child("protocol")), n+1
	}
	if ci := o.Get("commitInfo"); ci != nil {
		a.CommitInfo, n = append([]byte(nil), ci.Raw...), n+1
	}
	if o.Has("txn") {
		t := o.Child("txn")
		a.Txn, n = &Txn{AppID: t.Str("appId"), Version: t.Int("version"), LastUpdated: optInt(t, "lastUpdated")}, n+1
	}
	if o.Has("domainMetadata") {
		d := o.Child("domainMetadata")
		a.DomainMetadata, n = &DomainMetadata{Domain: d.Str("domain"), Configuration: d.Str("configuration"), Removed: d.Bool("removed")}, n+1
	}
	if o.Has("cdc") {
		c := o.Child("cdc")
		a.CDC, n = &CDC{Path: c.Str("path"), PartitionValues: c.StrPtrMap("partitionValues"), Size: c.Int("size"),
			DataChange: c.Bool("dataChange")}, n+1
	}
	if o.Has("checkpointMetadata") {
		c := o.Child("checkpointMetadata")
		a.CheckpointMetadata, n = &CheckpointMetadata{Version: c.Int("version"), Tags: c.StrPtrMap("tags")}, n+1
	}
	if o.Has("sidecar") {
		c := o.Child("sidecar")
		a.Sidecar, n = &Sidecar{Path: c.Str("path"), SizeInBytes: c.Int("sizeInBytes"), ModificationTime: c.Int("modificationTime")}, n+1
	}
	if err := o.Err(); err != nil {
		return Action{}, false, err
	}
	switch {
	case n == 0:
		return Action{}, false, nil
	case n > 1:
		return Action{}, false, errors.New(strconv.Itoa(n) + " actions on one line")
	}
	switch {
	case a.Add != nil && a.Add.Path == "", a.Remove != nil && a.Remove.Path == "", a.CDC != nil && a.CDC.Path == "",
		a.Sidecar != nil && a.Sidecar.Path == "":
		return Action{}, false, errors.New("action without a path")
	case a.Add != nil && a.Add.Size < 0:
		return Action{}, false, errf.Errorf("add %q: negative size %d", a.Add.Path, a.Add.Size)
	case a.Metadata != nil && a.Metadata.SchemaString == "":
		return Action{}, false, errors.New("metaData without schemaString")
	case a.Protocol != nil && a.Protocol.MinReaderVersion < 1:
		return Action{}, false, errf.Errorf("protocol minReaderVersion %d", a.Protocol.MinReaderVersion)
	}
	return a, true, nil
}

func decodeAdd(o *jsonv.Obj) *Add {
	return &Add{Path: o.Str("path"), PartitionValues: o.StrPtrMap("partitionValues"), Size: o.Int("size"),
		ModificationTime: o.Int("modificationTime"), DataChange: o.Bool("dataChange"), Stats: optStr(o, "stats"),
		Tags: o.StrPtrMap("tags"), DeletionVector: decodeDV(o, "deletionVector"), BaseRowID: optInt(o, "baseRowId")}
}

func decodeRemove(o *jsonv.Obj) *Remove {
	return &Remove{Path: o.Str("path"), DeletionTimestamp: optInt(o, "deletionTimestamp"), DataChange: o.Bool("dataChange"),
		PartitionValues: o.StrPtrMap("partitionValues"), Size: optInt(o, "size"), DeletionVector: decodeDV(o, "deletionVector")}
}

func decodeDV(p *jsonv.Obj, key string) *DeletionVector {
	if !p.Has(key) {
		return nil
	}
	o := p.Child(key)
	size, _ := int32Of(o, "sizeInBytes")
	dv := &DeletionVector{StorageType: o.Str("storageType"), PathOrInlineDv: o.Str("pathOrInlineDv"),
		SizeInBytes: size, Cardinality: o.Int("cardinality")}
	if off, ok := int32Of(o, "offset"); ok {
		dv.Offset = &off
	}
	return dv
}

// int32Of is member key's integer where it fits an int32, as encoding/json decodes one.
func int32Of(o *jsonv.Obj, key string) (int32, bool) {
	n, ok := o.OptInt(key)
	if ok && (n < math.MinInt32 || n > math.MaxInt32) {
		o.Fail(key, "a 32-bit integer", jsonv.Number)
		return 0, false
	}
	return int32(n), ok
}

func decodeMetadata(o *jsonv.Obj) *Metadata {
	f := o.Child("format")
	return &Metadata{ID: o.Str("id"), Name: optStr(o, "name"), Description: optStr(o, "description"),
		Format: Format{Provider: f.Str("provider"), Options: f.StrPtrMap("options")}, SchemaString: o.Str("schemaString"),
		PartitionColumns: o.Strs("partitionColumns"), Configuration: o.StrPtrMap("configuration"), CreatedTime: optInt(o, "createdTime")}
}

func decodeProtocol(o *jsonv.Obj) *Protocol {
	return &Protocol{MinReaderVersion: int(o.Int("minReaderVersion")), MinWriterVersion: int(o.Int("minWriterVersion")),
		ReaderFeatures: o.Strs("readerFeatures"), WriterFeatures: o.Strs("writerFeatures")}
}

// optStr and optInt read a member that may be absent or null (nil) as a pointer.
func optStr(o *jsonv.Obj, key string) *string {
	if s, ok := o.OptStr(key); ok {
		return &s
	}
	return nil
}

func optInt(o *jsonv.Obj, key string) *int64 {
	if n, ok := o.OptInt(key); ok {
		return &n
	}
	return nil
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
	lc, err := decodeLastCheckpoint(bytes.TrimSpace(data))
	if err != nil {
		return nil, errf.Errorf("%w: _last_checkpoint: %v", ErrMalformed, err)
	}
	if lc.Version < 0 || lc.Parts != nil && (*lc.Parts < 1 || *lc.Parts > 100000) {
		parts := "none"
		if lc.Parts != nil {
			parts = strconv.Itoa(*lc.Parts)
		}
		return nil, errf.Errorf("%w: _last_checkpoint: version %d, parts %s", ErrMalformed, lc.Version, parts)
	}
	if lc.V2Checkpoint != nil {
		if _, ok := ParseLogName(lc.V2Checkpoint.Path); !ok {
			return nil, errf.Errorf("%w: _last_checkpoint: v2Checkpoint path %q", ErrMalformed, lc.V2Checkpoint.Path)
		}
	}
	return lc, nil
}

func decodeLastCheckpoint(b []byte) (*LastCheckpoint, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, err
	}
	o := jsonv.NewObj(&v, "")
	lc := &LastCheckpoint{Version: o.Int("version"), Size: o.Int("size"), SizeInBytes: optInt(o, "sizeInBytes"),
		NumOfAddFile: optInt(o, "numOfAddFiles"), Checksum: o.Str("checksum")}
	if n, ok := o.OptInt("parts"); ok {
		p := int(n)
		lc.Parts = &p
	}
	if o.Has("v2Checkpoint") {
		c := o.Child("v2Checkpoint")
		lc.V2Checkpoint = &V2Checkpoint{Path: c.Str("path"), SizeInBytes: c.Int("sizeInBytes")}
	}
	return lc, o.Err()
}
