package delta

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
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

// EncodeState encodes s: the magic, s as JSON, then the CRC-32 of all of it.
func EncodeState(s *State) []byte {
	j, _ := json.Marshal(s) // plain structs: Marshal cannot fail
	b := append([]byte(stateMagic), j...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// DecodeState decodes what EncodeState wrote; anything else (truncated, altered, of another
// format, or not a state a replay can start from) is nil.
func DecodeState(b []byte) *State {
	if len(b) < len(stateMagic)+4 || string(b[:len(stateMagic)]) != stateMagic {
		return nil
	}
	body := b[:len(b)-4]
	var s State
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) || json.Unmarshal(body[len(stateMagic):], &s) != nil ||
		s.Version < 0 || s.Protocol == nil || s.Metadata == nil {
		return nil
	}
	for _, f := range s.Files {
		if f.Add == nil || f.Add.Path == "" || f.Version < 0 || f.Version > s.Version {
			return nil
		}
	}
	return &s
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
