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

// appendState writes s as Marshal writes a State: every member in the struct's order, nil
// as null, map keys sorted, the anchor's zero members left out (omitempty). The writers are
// calls of out-of-line helpers, one per member: in the wasm module each inline append costs
// hundreds of bytes.
func appendState(b []byte, s *State) []byte {
	w := jsonw.Begin(b)
	w.Int(`,"version":`, s.Version)
	w.Key(`,"protocol":`)
	if p := s.Protocol; p == nil {
		null(&w)
	} else {
		o := jsonw.Begin(w.B)
		o.Int(`,"minReaderVersion":`, int64(p.MinReaderVersion))
		o.Int(`,"minWriterVersion":`, int64(p.MinWriterVersion))
		o.Strings(`,"readerFeatures":`, p.ReaderFeatures)
		o.Strings(`,"writerFeatures":`, p.WriterFeatures)
		w.B = o.End()
	}
	w.Key(`,"metaData":`)
	if m := s.Metadata; m == nil {
		null(&w)
	} else {
		o := jsonw.Begin(w.B)
		o.Str(`,"id":`, m.ID)
		writeOptStr(&o, `,"name":`, m.Name)
		writeOptStr(&o, `,"description":`, m.Description)
		o.Key(`,"format":`)
		f := jsonw.Begin(o.B)
		f.Str(`,"provider":`, m.Format.Provider)
		strMap(&f, `,"options":`, m.Format.Options)
		o.B = f.End()
		o.Str(`,"schemaString":`, m.SchemaString)
		o.Strings(`,"partitionColumns":`, m.PartitionColumns)
		strMap(&o, `,"configuration":`, m.Configuration)
		writeOptInt(&o, `,"createdTime":`, m.CreatedTime)
		w.B = o.End()
	}
	w.Key(`,"files":`)
	if s.Files == nil {
		null(&w)
	} else {
		sep := byte('[')
		for _, f := range s.Files {
			o := jsonw.Begin(append(w.B, sep))
			o.Key(`,"add":`)
			o.B = appendAdd(o.B, f.Add)
			o.Int(`,"version":`, f.Version)
			w.B, sep = o.End(), ','
		}
		if sep == '[' {
			w.B = append(w.B, sep)
		}
		w.B = append(w.B, ']')
	}
	w.Key(`,"anchor":`)
	a := jsonw.Begin(w.B)
	a.Int(`,"size":`, s.Anchor.Size)
	if s.Anchor.ModTime != 0 {
		a.Int(`,"modTime":`, s.Anchor.ModTime)
	}
	if s.Anchor.CRC != 0 {
		a.Int(`,"crc":`, int64(s.Anchor.CRC))
	}
	if s.Anchor.HasCRC {
		a.Key(`,"hasCrc":`)
		a.B = append(a.B, "true"...)
	}
	w.B = a.End()
	return w.End()
}

func appendAdd(b []byte, a *Add) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	w := jsonw.Begin(b)
	w.Str(`,"path":`, a.Path)
	strMap(&w, `,"partitionValues":`, a.PartitionValues)
	w.Int(`,"size":`, a.Size)
	w.Int(`,"modificationTime":`, a.ModificationTime)
	w.Key(`,"dataChange":`)
	w.B = strconv.AppendBool(w.B, a.DataChange)
	writeOptStr(&w, `,"stats":`, a.Stats)
	strMap(&w, `,"tags":`, a.Tags)
	w.Key(`,"deletionVector":`)
	if dv := a.DeletionVector; dv == nil {
		null(&w)
	} else {
		o := jsonw.Begin(w.B)
		o.Str(`,"storageType":`, dv.StorageType)
		o.Str(`,"pathOrInlineDv":`, dv.PathOrInlineDv)
		var off *int64
		if dv.Offset != nil {
			n := int64(*dv.Offset)
			off = &n
		}
		writeOptInt(&o, `,"offset":`, off)
		o.Int(`,"sizeInBytes":`, int64(dv.SizeInBytes))
		o.Int(`,"cardinality":`, dv.Cardinality)
		w.B = o.End()
	}
	writeOptInt(&w, `,"baseRowId":`, a.BaseRowID)
	return w.End()
}

// null, writeOptStr, writeOptInt and strMap write a member as Marshal does: nil as null,
// map keys sorted.
//
//go:noinline
func null(w *jsonw.Object) { w.B = append(w.B, "null"...) }

//go:noinline
func writeOptStr(w *jsonw.Object, name string, s *string) {
	if s == nil {
		w.Key(name)
		null(w)
		return
	}
	w.Str(name, *s)
}

//go:noinline
func writeOptInt(w *jsonw.Object, name string, n *int64) {
	if n == nil {
		w.Key(name)
		null(w)
		return
	}
	w.Int(name, *n)
}

//go:noinline
func strMap(w *jsonw.Object, name string, m map[string]*string) {
	w.Key(name)
	if m == nil {
		null(w)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := jsonw.Begin(w.B)
	for _, k := range keys {
		o.AnyKey(k)
		if v := m[k]; v == nil {
			null(&o)
		} else {
			o.B = jsonw.String(o.B, *v)
		}
	}
	w.B = o.End()
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
