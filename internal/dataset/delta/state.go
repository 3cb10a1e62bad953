package delta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"sort"
)

// State is a replayed snapshot kept for a later load of the same table (LoaderOptions.Resume):
// the protocol, the metadata and the live files (each add as the log wrote it, with its
// statistics, partition values and deletion vector, and the version that added it). A remove
// after the state's version cancels a file of it like any earlier add, so nothing else of the
// log before the version is needed. Anchor identifies the state's last commit, for a later
// load to tell that the table is still the one the state is of.
type State struct {
	Version  int64
	Protocol Protocol
	Metadata Metadata
	Files    []StateFile // sorted by path
	Anchor   Anchor
}

// StateFile is a live file of a State.
type StateFile struct {
	Add     *Add
	Version int64
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

// stateHeader is the first line of an encoded State.
type stateHeader struct {
	Version int64   `json:"version"`
	Anchor  Anchor  `json:"anchor"`
	Added   []int64 `json:"added"` // the version of each add line, in order
}

// stateMagic starts an encoded State; its last byte is the format version: a State of another
// format is not decoded.
const stateMagic = "PQDELTASTATE\x01\n"

var errState = errors.New("delta: not a stored snapshot state")

// EncodeState encodes s: the magic, a header line, then the protocol, the metadata and each
// add as one line of a commit, then the CRC-32 of all of it.
func EncodeState(s *State) []byte {
	h := stateHeader{Version: s.Version, Anchor: s.Anchor, Added: make([]int64, len(s.Files))}
	for i, f := range s.Files {
		h.Added[i] = f.Version
	}
	b := []byte(stateMagic)
	line := func(v any) {
		j, _ := json.Marshal(v) // plain structs: Marshal cannot fail
		b = append(append(b, j...), '\n')
	}
	line(h)
	line(actionJSON{Protocol: &s.Protocol})
	line(actionJSON{Metadata: &s.Metadata})
	for _, f := range s.Files {
		line(actionJSON{Add: f.Add})
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// DecodeState decodes what EncodeState wrote; anything else (truncated, altered, of another
// format) is an error.
func DecodeState(b []byte) (*State, error) {
	if len(b) < len(stateMagic)+4 || string(b[:len(stateMagic)]) != stateMagic {
		return nil, errState
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errState
	}
	body = body[len(stateMagic):]
	nl := bytes.IndexByte(body, '\n')
	var h stateHeader
	if nl < 0 || json.Unmarshal(body[:nl], &h) != nil || h.Version < 0 {
		return nil, errState
	}
	acts, err := ParseCommit("state", body[nl+1:])
	if err != nil || len(acts) != len(h.Added)+2 || acts[0].Protocol == nil || acts[1].Metadata == nil {
		return nil, errState
	}
	s := &State{Version: h.Version, Protocol: *acts[0].Protocol, Metadata: *acts[1].Metadata, Anchor: h.Anchor}
	for i, a := range acts[2:] {
		if a.Add == nil || h.Added[i] < 0 || h.Added[i] > h.Version || i > 0 && a.Add.Path < acts[i+1].Add.Path {
			return nil, errState
		}
		s.Files = append(s.Files, StateFile{Add: a.Add, Version: h.Added[i]})
	}
	return s, nil
}

// state is the replayed state after the last version applied (Snapshot must have succeeded:
// protocol and metadata are set).
func (r *Replay) state() *State {
	s := &State{Version: r.version, Protocol: *r.protocol, Metadata: *r.metadata}
	for _, e := range r.files {
		s.Files = append(s.Files, StateFile{Add: e.add, Version: e.version})
	}
	sort.Slice(s.Files, func(i, j int) bool {
		a, b := s.Files[i].Add, s.Files[j].Add
		return a.Path < b.Path || a.Path == b.Path && a.DeletionVector.UniqueID() < b.DeletionVector.UniqueID()
	})
	return s
}

// replayFrom starts a replay at the state: Commit takes the version after it.
func replayFrom(s *State) *Replay {
	r := NewReplay()
	r.version, r.checkpoint = s.Version, true
	p, m := s.Protocol, s.Metadata
	r.protocol, r.metadata = &p, &m
	for _, f := range s.Files {
		r.files[fileKey{f.Add.Path, f.Add.DeletionVector.UniqueID()}] = &entry{add: f.Add, version: f.Version}
	}
	return r
}

// resumeListing plans the commits after the state from a listing of _delta_log/: ok is false
// when the listing does not show the state's commit as anchored (the table went back or was
// replaced) or lacks a commit between it and the latest version.
func resumeListing(files []LogFile, s *State) (names []string, latest int64, ok bool) {
	commits := map[int64]LogFile{}
	latest = -1
	for _, f := range files {
		switch f.Kind {
		case KindCommit:
			commits[f.Version] = f
			latest = max(latest, f.Version)
		case KindCheckpoint, KindCheckpointPart, KindCheckpointV2:
			latest = max(latest, f.Version)
		}
	}
	c, found := commits[s.Version]
	if !found || latest < s.Version || !s.Anchor.matches(c.Size, c.ModTime, nil) {
		return nil, 0, false
	}
	for v := s.Version + 1; v <= latest; v++ {
		f, found := commits[v]
		if !found {
			return nil, 0, false
		}
		names = append(names, f.Name)
	}
	return names, latest, true
}
