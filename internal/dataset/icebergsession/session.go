// Package icebergsession is the Iceberg snapshot session of the engine protocol: the table
// metadata, manifest list and manifests read inside the engine, so that every host (the Go
// API, the wasm module's wazero and JS hosts) gets an Iceberg table's files without a reader
// of its own. Like the Delta session it is sans-IO and speaks the same steps: NeedObjects
// (scan.NeedObjects: GET whole objects, or list metadata/), ending with the snapshot
// as the options of a table session (deltasession.Snapshot), whose files are then read by
// the table scan (per-file fitting to the table schema by field id, pruning).
//
// Rounds: the version hint (and the listing of metadata/, when the host can list) → the
// metadata file → the manifest list (Done here with Options.ListOnly) → the manifests Where
// may match, at once → (NeedData: the delete files that apply, deletes.go) → Done.
package icebergsession

import (
	"errors"
	"sort"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
)

// ErrProtocol reports a host that answered what was not asked, or called Next with objects
// unanswered.
var ErrProtocol = errors.New("icebergsession: protocol")

// ErrOptions reports options that contradict each other.
var ErrOptions = errors.New("icebergsession: options")

// Options configure a session (the JSON of pq_open_iceberg).
type Options struct {
	// Metadata is the metadata file to read, relative to the table root
	// ("metadata/v3.metadata.json"); "" finds the current one (version hint, else listing).
	Metadata string `json:"metadata,omitempty"`
	// CanList says the host can list metadata/ (a local folder, an S3 ListObjectsV2
	// endpoint): the newest metadata file is then found without a version hint.
	CanList bool `json:"canList,omitempty"`
	// SnapshotID reads that snapshot instead of the current one.
	SnapshotID *int64 `json:"snapshotId,omitempty"`
	// Where, a predicate every scan of the table implies (the scan's own, when the table is
	// opened for one scan), skips what cannot hold a matching row before it is read: data
	// manifests by their partition summaries, data files by their bucket partition values.
	// The snapshot then lacks them, so a scan whose predicate does not imply Where misses rows.
	Where string `json:"where,omitempty"`
	// AsOf (milliseconds since the epoch) reads the snapshot current at that time instead
	// (iceberg.Metadata.AsOf); with SnapshotID it is an error. A snapshot so chosen, other
	// than the current one, reads with its own schema (its schema-id).
	AsOf *int64 `json:"asOf,omitempty"`
	// PathMap reads the files the metadata names under a prefix at a base URL (http:, https:
	// or file:, resolved by the host), the longest prefix winning over the table location's
	// own mapping too (iceberg.LocateMapped); the host checks the mapped paths against its
	// scope like any other absolute path.
	PathMap map[string]string `json:"pathMap,omitempty"`
	// ListOnly ends the session once the manifest list is read: the snapshot has the table's
	// schema and no files. A host opening a table this way reads its manifests per scan, each
	// scan's predicate as Where, in a session given the metadata file the first one read
	// (Snapshot.Metadata), answering the objects it already holds from memory.
	ListOnly bool `json:"listOnly,omitempty"`
}

type state int

const (
	stLocate    state = iota // version hints (and the listing) asked
	stCandidate              // metadata file candidates asked one by one (no listing)
	stMetadata               // the metadata file asked
	stList                   // the manifest list asked
	stManifests              // every manifest asked
	stDeletes                // delete files' bytes asked (deletes.go)
	stDone
)

// Session is one snapshot read. Not safe for concurrent use.
type Session struct {
	opts  Options
	st    state
	objs  map[string]deltasession.Object // asked, not yet answered
	got   map[string][]byte              // answered (nil: not found)
	cands []string                       // metadata files still to try (stCandidate)
	meta  *iceberg.Metadata
	mpath string // the metadata file read
	snap  *iceberg.Snapshot
	mans  []iceberg.ManifestFile
	out   *deltasession.Snapshot
	err   error
	rep   scan.Report
	pr    *iceberg.Pruner
	bound *prune.Bound
	// skippedManifests and skippedFiles count what Where left unread.
	skippedManifests, skippedFiles int
	del                            *deleteReads     // the delete files read, once the manifests are
	fields                         []arrowipc.Field // the table schema, once the manifests are read
	schema                         *iceberg.Schema
	stats                          []map[string]prune.ColStats // by data file kept: its statistics for the scan
	defaults                       map[string]prune.Value      // the top-level columns' initial-defaults
	preview                        *deltasession.Snapshot      // the files while their deletes are read
}

// New starts a session. It does no I/O.
func New(o Options) (*Session, error) {
	if o.AsOf != nil && o.SnapshotID != nil {
		return nil, errf.Errorf("%w: a snapshot id and a time (asOf) together", ErrOptions)
	}
	if err := checkPathMap(o.PathMap); err != nil {
		return nil, err
	}
	return &Session{opts: o, objs: map[string]deltasession.Object{}, got: map[string][]byte{}}, nil
}

func (s *Session) fail(err error) scan.Step {
	if s.err == nil {
		s.err = err
	}
	return scan.Step{Kind: scan.Error, Err: s.err}
}

func (s *Session) ask(kind string, paths ...string) scan.Step {
	for _, p := range paths {
		s.objs[p] = deltasession.Object{Kind: kind, Path: p}
	}
	return scan.Step{Kind: scan.NeedObjects}
}

// Next advances the read: NeedObjects, then Done (Snapshot is ready) or Error.
func (s *Session) Next() scan.Step {
	switch {
	case s.err != nil:
		return scan.Step{Kind: scan.Error, Err: s.err}
	case len(s.objs) > 0:
		return s.fail(errf.Errorf("%w: Next with %d objects unanswered", ErrProtocol, len(s.objs)))
	}
	var err error
	switch s.st {
	case stLocate:
		if len(s.got) == 0 {
			if s.opts.Metadata != "" {
				s.st = stMetadata
				s.mpath = s.opts.Metadata
				return s.ask(protocol.ObjectGet, s.mpath)
			}
			st := s.ask(protocol.ObjectGet, iceberg.HintFiles...)
			if s.opts.CanList {
				s.ask(protocol.ObjectList, "metadata/")
			}
			return st
		}
		return s.locate()
	case stCandidate:
		if s.got[s.mpath] != nil {
			return s.readMetadata()
		}
		return s.nextCandidate()
	case stMetadata:
		return s.readMetadata()
	case stList:
		b := s.got[s.snap.ManifestList]
		if b == nil {
			return s.fail(errf.Errorf("%w: the manifest list %s of snapshot %d", iceberg.ErrMissingFile, s.snap.ManifestList, s.snap.ID))
		}
		if s.mans, err = iceberg.ParseManifestList(s.snap.ManifestList, b); err != nil {
			return s.fail(err)
		}
		if s.opts.ListOnly {
			return s.finish()
		}
		return s.askManifests()
	case stManifests:
		return s.finish()
	case stDeletes:
		return s.stepDeletes()
	}
	return scan.Step{Kind: scan.Done}
}

// locate picks the metadata file from the hints' and the listing's answers.
func (s *Session) locate() scan.Step {
	var hint []byte
	for _, h := range iceberg.HintFiles {
		if hint = s.got[h]; hint != nil {
			break
		}
	}
	listing := s.got["metadata/"]
	listed := listing != nil
	var names []string
	if listed {
		var err error
		if names, err = listedNames(listing); err != nil {
			return s.fail(errf.Errorf("%w: the listing of metadata/: %v", ErrProtocol, err))
		}
	}
	var name string
	var ok bool
	switch {
	case hint != nil && listed:
		if name, ok = iceberg.FromHint(hint, names); !ok {
			name, ok = iceberg.Newest(names) // a stale or odd hint: the listing decides
		}
	case hint != nil:
		cands, err := iceberg.HintCandidates(hint)
		if err != nil {
			return s.fail(err)
		}
		s.cands = cands
		return s.nextCandidate()
	case listed:
		name, ok = iceberg.Newest(names)
	}
	if !ok {
		return s.fail(errf.Errorf("%w: no version hint and no *.metadata.json under metadata/", iceberg.ErrNotATable))
	}
	s.st, s.mpath = stMetadata, "metadata/"+name
	return s.ask(protocol.ObjectGet, s.mpath)
}

// nextCandidate asks for the next metadata file a hint may name (no listing to choose from).
func (s *Session) nextCandidate() scan.Step {
	if len(s.cands) == 0 {
		return s.fail(errf.Errorf("%w: the version hint names no metadata file that exists", iceberg.ErrNotATable))
	}
	s.st, s.mpath, s.cands = stCandidate, "metadata/"+s.cands[0], s.cands[1:]
	return s.ask(protocol.ObjectGet, s.mpath)
}

// readMetadata parses the metadata file and asks for the snapshot's manifest list (or, for
// a v1 snapshot without one, its manifests).
func (s *Session) readMetadata() scan.Step {
	b := s.got[s.mpath]
	if b == nil {
		return s.fail(errf.Errorf("%w: the metadata file %s", iceberg.ErrMissingFile, s.mpath))
	}
	js, err := iceberg.Decompress(s.mpath, b)
	if err == nil {
		s.meta, err = iceberg.ParseMetadata(js)
	}
	switch {
	case err != nil:
	case s.opts.AsOf != nil:
		s.snap, err = s.meta.AsOf(*s.opts.AsOf)
	default:
		s.snap, err = s.meta.Current(s.opts.SnapshotID)
	}
	if err != nil {
		return s.fail(errf.Errorf("%s: %w", s.mpath, err))
	}
	switch {
	case s.snap == nil, s.opts.ListOnly && s.snap.ManifestList == "":
		return s.finish() // never written: an empty table; or a v1 snapshot's manifests, per scan
	case s.snap.ManifestList != "":
		at, abs, err := iceberg.LocateMapped(s.meta.Location, s.snap.ManifestList, s.opts.PathMap)
		if err != nil {
			return s.fail(err)
		}
		entry := errf.Sprintf("manifest list %q of snapshot %d", s.snap.ManifestList, s.snap.ID)
		s.snap.ManifestList, s.st = at, stList
		s.objs[at] = deltasession.Object{Kind: protocol.ObjectGet, Path: at, Absolute: abs, Entry: entry}
		return scan.Step{Kind: scan.NeedObjects}
	}
	for _, m := range s.snap.Manifests {
		s.mans = append(s.mans, iceberg.ManifestFile{Path: m})
	}
	return s.askManifests()
}

// askManifests asks for every manifest of the snapshot in one round.
func (s *Session) askManifests() scan.Step {
	s.st = stManifests
	s.pruneManifests()
	if len(s.mans) == 0 {
		return s.finish()
	}
	for i := range s.mans {
		at, abs, err := iceberg.LocateMapped(s.meta.Location, s.mans[i].Path, s.opts.PathMap)
		if err != nil {
			return s.fail(err)
		}
		entry := errf.Sprintf("manifest %q of snapshot %d", s.mans[i].Path, s.snap.ID)
		s.mans[i].Path = at
		s.objs[at] = deltasession.Object{Kind: protocol.ObjectGet, Path: at, Absolute: abs, Entry: entry}
	}
	return scan.Step{Kind: scan.NeedObjects}
}

// finish reads the manifests into the table session's options.
func (s *Session) finish() scan.Step {
	s.st = stDone
	schema, err := s.snapshotSchema()
	if err != nil {
		return s.fail(err)
	}
	s.schema = schema
	if s.fields, err = iceberg.ArrowFields(schema.Fields); err != nil {
		return s.fail(errf.Errorf("%s: %w", s.mpath, err))
	}
	if s.defaults, err = iceberg.Defaults(schema.Fields); err != nil {
		return s.fail(errf.Errorf("%s: %w", s.mpath, err))
	}
	if s.opts.ListOnly {
		return s.build(nil, nil)
	}
	var data, deletes []iceberg.DataFile
	for _, m := range s.mans {
		b := s.got[m.Path]
		if b == nil {
			return s.fail(errf.Errorf("%w: the manifest %s", iceberg.ErrMissingFile, m.Path))
		}
		files, err := iceberg.ParseManifest(m, b)
		if err != nil {
			return s.fail(err)
		}
		for _, f := range files {
			if f.Content == iceberg.ContentData {
				data = append(data, f)
			} else {
				deletes = append(deletes, f)
			}
		}
	}
	// Files Where skips are dropped before their deletes are planned: those are never read.
	pr, bound := s.pruner()
	kept := data[:0:0]
	s.stats = nil
	for _, f := range data {
		stats, keep := pr.FileStats(bound, f)
		if keep && bound != nil && stats != nil {
			// As the table scan would skip it by the same statistics: its deletes are not read.
			keep = bound.MayMatch(func(p string) (prune.ColStats, bool) { c, ok := stats[p]; return c, ok })
		}
		if !keep {
			s.skippedFiles++
			continue
		}
		kept = append(kept, f)
		s.stats = append(s.stats, stats)
	}
	plan, err := iceberg.PlanDeletes(kept, deletes)
	if err != nil {
		return s.fail(err)
	}
	if st, ok := s.startDeletes(kept, deletes, plan); ok {
		return st
	}
	return s.build(kept, nil)
}

// snapshotSchema is the schema the snapshot reads with: a snapshot other than the current
// one its own; the current one, however chosen, the table's (a column renamed since reads
// under its new name).
func (s *Session) snapshotSchema() (*iceberg.Schema, error) {
	cur := s.meta.CurrentSnapshot
	travel := s.snap != nil && (cur == nil || s.snap.ID != *cur)
	return s.meta.SchemaOf(s.snap, travel)
}

// build ends the session with the snapshot of the data files, with their deleted rows (by
// data file; nil: none).
func (s *Session) build(data []iceberg.DataFile, deleted [][]int64) scan.Step {
	s.st = stDone
	out, err := s.snapshotOf(data, deleted)
	if err != nil {
		return s.fail(err)
	}
	s.out = out
	return scan.Step{Kind: scan.Done}
}

// Objects are the requests of the last NeedObjects step, sorted by path.
func (s *Session) Objects() []deltasession.Object {
	out := make([]deltasession.Object, 0, len(s.objs))
	for _, o := range s.objs {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// PushObject answers one object of the last NeedObjects step: for "get" its bytes (found
// false: it does not exist); for "list" the JSON array of deltasession.ListEntry. data is
// copied.
func (s *Session) PushObject(p string, data []byte, found bool) error {
	if s.err != nil {
		return s.err
	}
	if _, ok := s.objs[p]; !ok {
		return errf.Errorf("%w: %s was not asked for", ErrProtocol, p)
	}
	delete(s.objs, p)
	if !found {
		s.got[p] = nil
		return nil
	}
	// Kept past the call: the wasm host's buffer holding data is reused by its next push.
	s.got[p] = append([]byte{}, data...)
	s.rep.BytesPushed += int64(len(data))
	s.rep.Requests++
	return nil
}

// Push and SetFileSize are errors: the session's files are named (PushFile).
func (s *Session) Push(int64, []byte) error {
	return errf.Errorf("%w: an Iceberg session takes PushObject and PushFile", ErrProtocol)
}
func (s *Session) SetFileSize(int64) error { return s.Push(0, nil) }

// Report counts the objects read so far.
func (s *Session) Report() scan.Report { return s.rep }

// Close implements scan.Session.
func (s *Session) Close() error { return nil }

// Snapshot is the result once Next returned Done. While the delete files are read (NeedData)
// it is the data files without their deleted rows: a host may fetch their footers in the same
// round (their tails, as the table scan asks them).
func (s *Session) Snapshot() *deltasession.Snapshot {
	if s.out == nil && s.st == stDeletes {
		return s.preview
	}
	return s.out
}

// listedNames are the names of a listing answer, a JSON array of deltasession.ListEntry
// objects; each entry's size and modTime must be integers (or absent) as the type says.
func listedNames(b []byte) ([]string, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, err
	}
	// The array read as a member, so that Obj's type checks and paths cover its entries.
	w := jsonv.Value{Kind: jsonv.Object, Keys: []string{"listing"}, Vals: []jsonv.Value{v}}
	o := jsonv.NewObj(&w, "")
	var names []string
	for _, e := range o.Objs("listing") {
		names = append(names, e.Str("name"))
		e.Int("size")
		e.Int("modTime")
	}
	return names, o.Err()
}
