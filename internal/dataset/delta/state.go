package delta

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"sort"
	"strconv"

	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// State is a replayed snapshot kept for a later load of the same table (LoaderOptions.Resume):
// the protocol, the metadata and the live files (each add as the log wrote it, with its
// statistics, partition values and deletion vector, and the version that added it). A remove
// after the state's version cancels a file of it like any earlier add, so nothing else of the
// log before the version is needed. Anchor identifies the state's last commit, for a later
// load to tell that the table is still the one the state is of.
type State struct {
	Version  int64       `json:"version"`
	Protocol *Protocol   `json:"protocol"`
	Metadata *Metadata   `json:"metaData"`
	Files    []StateFile `json:"files"`
	Anchor   Anchor      `json:"anchor"`
}

// StateFile is a live file of a State.
type StateFile struct {
	Add     *Add  `json:"add"`
	Version int64 `json:"version"`
}

// Anchor identifies commit State.Version as it was read: its size (-1: unknown), its listed
// modification time (0: unknown) and, when its bytes were read, their CRC-32.
type Anchor struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"modTime,omitempty"`
	CRC     uint32 `json:"crc,omitempty"`
	HasCRC  bool   `json:"hasCrc,omitempty"`
}

// matches says whether a commit listed with size and modTime (or fetched: its bytes b, nil
// when not read) can be the anchored one: every property known on both sides agrees.
func (a Anchor) matches(size, modTime int64, b []byte) bool {
	switch {
	case a.Size >= 0 && size >= 0 && a.Size != size, a.ModTime > 0 && modTime > 0 && a.ModTime != modTime:
		return false
	case b != nil && a.HasCRC:
		return crc32.ChecksumIEEE(b) == a.CRC
	}
	return true
}

// stateMagic starts an encoded State; its last byte is the format version: a State of another
// format is not decoded.
const stateMagic = "PQDELTASTATE\x01\n"

// EncodeState encodes s: the magic, s as JSON, then the CRC-32 of all of it. The JSON is
// what encoding/json's Marshal writes for State (the format's first writer): states stored
// by then still decode.
func EncodeState(s *State) []byte {
	b := appendState([]byte(stateMagic), s)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// DecodeState decodes what EncodeState wrote; anything else (truncated, altered, of another
// format, or not a state a replay can start from) is nil.
func DecodeState(b []byte) *State {
	if len(b) < len(stateMagic)+4 || string(b[:len(stateMagic)]) != stateMagic {
		return nil
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	s, err := decodeState(body[len(stateMagic):])
	if err != nil || s.Version < 0 || s.Protocol == nil || s.Metadata == nil {
		return nil
	}
	for _, f := range s.Files {
		if f.Add == nil || f.Add.Path == "" || f.Version < 0 || f.Version > s.Version {
			return nil
		}
	}
	return s
}

func decodeState(b []byte) (*State, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, err
	}
	o := jsonv.NewObj(&v, "")
	s := &State{Version: o.Int("version")}
	if o.Has("protocol") {
		s.Protocol = decodeProtocol(o.Child("protocol"))
	}
	if o.Has("metaData") {
		s.Metadata = decodeMetadata(o.Child("metaData"))
	}
	if fs := o.Objs("files"); fs != nil {
		s.Files = make([]StateFile, len(fs))
		for i, f := range fs {
			s.Files[i].Version = f.Int("version")
			if f.Has("add") {
				s.Files[i].Add = decodeAdd(f.Child("add"))
			}
		}
	}
	a := o.Child("anchor")
	s.Anchor = Anchor{Size: a.Int("size"), ModTime: a.Int("modTime"), HasCRC: a.Bool("hasCrc")}
	if n, ok := a.OptInt("crc"); ok {
		if n < 0 || n > math.MaxUint32 {
			a.Fail("crc", "a 32-bit unsigned integer", jsonv.Number)
		}
		s.Anchor.CRC = uint32(n)
	}
	return s, o.Err()
}

func appendState(b []byte, s *State) []byte {
	b = strconv.AppendInt(append(b, `{"version":`...), s.Version, 10)
	b = append(b, `,"protocol":`...)
	if p := s.Protocol; p == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(append(b, `{"minReaderVersion":`...), int64(p.MinReaderVersion), 10)
		b = strconv.AppendInt(append(b, `,"minWriterVersion":`...), int64(p.MinWriterVersion), 10)
		b = appendStrings(append(b, `,"readerFeatures":`...), p.ReaderFeatures)
		b = append(appendStrings(append(b, `,"writerFeatures":`...), p.WriterFeatures), '}')
	}
	b = append(b, `,"metaData":`...)
	if m := s.Metadata; m == nil {
		b = append(b, "null"...)
	} else {
		b = jsonw.String(append(b, `{"id":`...), m.ID)
		b = appendOptStr(append(b, `,"name":`...), m.Name)
		b = appendOptStr(append(b, `,"description":`...), m.Description)
		b = jsonw.String(append(b, `,"format":{"provider":`...), m.Format.Provider)
		b = append(appendStrMap(append(b, `,"options":`...), m.Format.Options), '}')
		b = jsonw.String(append(b, `,"schemaString":`...), m.SchemaString)
		b = appendStrings(append(b, `,"partitionColumns":`...), m.PartitionColumns)
		b = appendStrMap(append(b, `,"configuration":`...), m.Configuration)
		b = append(appendOptInt(append(b, `,"createdTime":`...), m.CreatedTime), '}')
	}
	b = append(b, `,"files":`...)
	if s.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range s.Files {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAdd(append(b, `{"add":`...), f.Add)
			b = append(strconv.AppendInt(append(b, `,"version":`...), f.Version, 10), '}')
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"anchor":{"size":`...), s.Anchor.Size, 10)
	if s.Anchor.ModTime != 0 {
		b = strconv.AppendInt(append(b, `,"modTime":`...), s.Anchor.ModTime, 10)
	}
	if s.Anchor.CRC != 0 {
		b = strconv.AppendUint(append(b, `,"crc":`...), uint64(s.Anchor.CRC), 10)
	}
	if s.Anchor.HasCRC {
		b = append(b, `,"hasCrc":true`...)
	}
	return append(b, "}}"...)
}

func appendAdd(b []byte, a *Add) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	b = jsonw.String(append(b, `{"path":`...), a.Path)
	b = appendStrMap(append(b, `,"partitionValues":`...), a.PartitionValues)
	b = strconv.AppendInt(append(b, `,"size":`...), a.Size, 10)
	b = strconv.AppendInt(append(b, `,"modificationTime":`...), a.ModificationTime, 10)
	b = strconv.AppendBool(append(b, `,"dataChange":`...), a.DataChange)
	b = appendOptStr(append(b, `,"stats":`...), a.Stats)
	b = appendStrMap(append(b, `,"tags":`...), a.Tags)
	b = append(b, `,"deletionVector":`...)
	if dv := a.DeletionVector; dv == nil {
		b = append(b, "null"...)
	} else {
		b = jsonw.String(append(b, `{"storageType":`...), dv.StorageType)
		b = jsonw.String(append(b, `,"pathOrInlineDv":`...), dv.PathOrInlineDv)
		b = append(b, `,"offset":`...)
		if dv.Offset == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, int64(*dv.Offset), 10)
		}
		b = strconv.AppendInt(append(b, `,"sizeInBytes":`...), int64(dv.SizeInBytes), 10)
		b = append(strconv.AppendInt(append(b, `,"cardinality":`...), dv.Cardinality, 10), '}')
	}
	return append(appendOptInt(append(b, `,"baseRowId":`...), a.BaseRowID), '}')
}

// appendStrings, appendOptStr, appendOptInt and appendStrMap write as Marshal does: nil as
// null, map keys sorted.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, s)
	}
	return append(b, ']')
}

func appendOptStr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jsonw.String(b, *s)
}

func appendOptInt(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

func appendStrMap(b []byte, m map[string]*string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOptStr(append(jsonw.String(b, k), ':'), m[k])
	}
	return append(b, '}')
}

// state is the replayed state after the last version applied (Snapshot must have succeeded:
// protocol and metadata are set), its files in no particular order.
func (r *Replay) state() *State {
	s := &State{Version: r.version, Protocol: r.protocol, Metadata: r.metadata}
	for _, e := range r.files {
		s.Files = append(s.Files, StateFile{Add: e.add, Version: e.version})
	}
	return s
}

// replayFrom starts a replay at the state: Commit takes the version after it.
func replayFrom(s *State) *Replay {
	r := NewReplay()
	r.version, r.checkpoint, r.protocol, r.metadata = s.Version, true, s.Protocol, s.Metadata
	for _, f := range s.Files {
		r.apply(Action{Add: f.Add}, f.Version)
	}
	return r
}

// resumeListing counts the commits after the state up to the latest version of a listing of
// _delta_log/ (as PlanListing finds it): ok is false when the listing does not show the
// state's commit as anchored (the table went back or was replaced) or lacks a commit after it.
func resumeListing(files []LogFile, s *State) (n int64, ok bool) {
	plan, err := PlanListing(files, -1)
	n = plan.Version - s.Version
	if err != nil || n < 0 || n >= int64(len(files)) {
		return 0, false
	}
	have := make([]bool, n+1)
	for _, f := range files {
		if i := f.Version - s.Version; f.Kind == KindCommit && i >= 0 && i <= n && (i > 0 || s.Anchor.matches(f.Size, f.ModTime, nil)) {
			have[i] = true
		}
	}
	for _, h := range have {
		if !h {
			return 0, false
		}
	}
	return n, true
}
