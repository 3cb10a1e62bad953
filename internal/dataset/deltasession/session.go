// Package deltasession is the Delta snapshot session of the engine protocol: the log replay
// (delta.Loader) driven inside the engine, so that every host (the wasm module's JS bridge,
// the wazero host) gets a Delta table's snapshot without re-implementing the replay. The
// session is sans-IO like the scanners: its steps ask the host for whole log objects (the
// NeedObjects step: GET one object, or list `_delta_log/`) and for byte ranges of checkpoint
// and sidecar Parquet files (NeedData, as a table session's), which it reads with the engine's
// own scanner; it ends with the snapshot as the options a table session (pq_open_table) needs.
package deltasession

import (
	"errors"
	"sort"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

var (
	// ErrProtocol reports a host that answered what was not asked, or asked Next with
	// objects unanswered.
	ErrProtocol = errors.New("deltasession: protocol")
	errRows     = errors.New("deltasession: malformed checkpoint batch")
)

// Options configure a session (the JSON of pq_open_delta).
type Options struct {
	// Version is the snapshot version; nil for the latest.
	Version *int64 `json:"version,omitempty"`
	// AsOf asks for the snapshot at a time instead (milliseconds since the epoch): the latest
	// version committed at or before it (delta.LoaderOptions.AsOf). It needs CanList and the
	// listing's modification times; with Version it is an error.
	AsOf *int64 `json:"asOf,omitempty"`
	// CanList says the host can list `_delta_log/` (a local folder, an S3 ListObjectsV2
	// endpoint): the session then asks for one listing instead of probing versions.
	CanList bool `json:"canList,omitempty"`
	// MemoryCap and TailSize are the engine options of the checkpoint reads.
	MemoryCap int64 `json:"memoryCap,omitempty"`
	TailSize  int64 `json:"tailSize,omitempty"`
	// Root is the table root as an absolute URI ending in '/' (https://host/t/,
	// file:///data/t/): a deletion vector the log names by an absolute path ("p") is read
	// when it lies under it, and refused otherwise. Vectors named relative to the root ("u",
	// what Spark and delta-rs write) need no Root.
	Root string `json:"root,omitempty"`
	// Resume is the State of an earlier snapshot of the table (a host's metadata cache): a
	// read of the latest version reads the commits after it only (delta.LoaderOptions.Resume).
	// A state that does not decode, or that the log contradicts, is ignored.
	Resume []byte `json:"resume,omitempty"`
	// KeepState asks for the snapshot's State, for a later session's Resume.
	KeepState bool `json:"keepState,omitempty"`
}

// Object is one whole-object request: Kind "get" (the object's bytes, or not found) or
// "list" (the names and sizes of the objects under Path, a prefix ending in '/').
type Object struct {
	Kind string `json:"kind"`
	Path string `json:"path"` // relative to the table root, unless Absolute
	// Absolute marks a path outside the table root, as written (an Iceberg manifest list or
	// manifest outside the table location: an http(s) or file: URI or an absolute path),
	// for the host to resolve and check against what the open may reach before it fetches.
	Absolute bool `json:"absolute,omitempty"`
	// Entry names the metadata entry that asks for the object, with its path as written,
	// for the host's messages ("" for the log's own files).
	Entry string `json:"entry,omitempty"`
	// Optional (package discover's probe pages): a failure to fetch the object is answered
	// not found instead of failing the open.
	Optional bool `json:"optional,omitempty"`
	// Fresh asks the host to read the object itself, not from a cache of objects (a Delta
	// commit checked against a stored state).
	Fresh bool `json:"fresh,omitempty"`
}

// ListEntry is one object of a listing answer (PushObject of a "list" request, as JSON).
type ListEntry struct {
	Name string `json:"name"` // relative to the listed prefix
	Size int64  `json:"size"`
	// ModTime is the object's modification time in milliseconds since the epoch (a local
	// file's mtime, a listing's LastModified); 0 when unknown. Time travel by timestamp
	// needs it for the commits.
	ModTime int64 `json:"modTime,omitempty"`
}

// Session is one snapshot read. Not safe for concurrent use.
type Session struct {
	opts  Options
	l     *delta.Loader
	objs  map[string]Object // asked in the last NeedObjects step, not yet answered
	files []string          // the checkpoint file table: NeedData's file index -> path
	reads map[int]*cpRead   // checkpoint reads in progress, by file index
	snap  *Snapshot
	err   error
	rep   scan.Report
	// replayed is the log's snapshot while its deletion vectors are read (dv.go): dvs are
	// those files by file index, vecFiles their indexes by path.
	replayed *delta.Snapshot
	dvs      map[int]*dvFile
	vecFiles map[string]int
	owners   []string // by file index: the data file whose vector it holds ("": a checkpoint's)
}

// cpRead is one checkpoint or sidecar Parquet file read with the engine's scanner.
type cpRead struct {
	path string
	sc   *scan.Scanner
	out  arrowipc.Schema
	rows []map[string]any
	err  error // a batch that did not convert
}

// New starts a session.
func New(o Options) (*Session, error) {
	v := int64(-1)
	if o.Version != nil {
		if v = *o.Version; v < 0 {
			return nil, errf.Errorf("%w: Delta version %d", scan.ErrOptions, v)
		}
		if o.AsOf != nil {
			return nil, errf.Errorf("%w: a Delta version and a timestamp (asOf) together", scan.ErrOptions)
		}
	}
	lo := delta.LoaderOptions{Version: v, CanList: o.CanList, AsOf: o.AsOf}
	if len(o.Resume) > 0 {
		lo.Resume = delta.DecodeState(o.Resume) // nil: a bad state is a miss
	}
	return &Session{opts: o, l: delta.NewLoader(lo),
		objs: map[string]Object{}, reads: map[int]*cpRead{}, dvs: map[int]*dvFile{}}, nil
}

func (s *Session) fail(err error) scan.Step {
	if s.err == nil {
		s.err = err
	}
	return scan.Step{Kind: scan.Error, Err: s.err}
}

// Next advances the read: NeedObjects, NeedData (checkpoint bytes), Done (Snapshot is
// ready) or Error.
func (s *Session) Next() scan.Step {
	for round := 0; ; round++ {
		switch {
		case s.err != nil:
			return scan.Step{Kind: scan.Error, Err: s.err}
		case s.snap != nil:
			return scan.Step{Kind: scan.Done}
		case len(s.objs) > 0:
			return s.fail(errf.Errorf("%w: Next with %d log objects unanswered", ErrProtocol, len(s.objs)))
		case round > 1<<16:
			return s.fail(errf.Errorf("%w: the Delta log read made no progress", ErrProtocol))
		case s.replayed != nil:
			return s.finish(s.replayed) // the vectors' bytes were pushed
		}
		if len(s.reads) > 0 {
			if st, ok := s.stepReads(); ok {
				return st
			}
			continue
		}
		reqs, done, err := s.l.Next()
		if err != nil {
			return s.fail(err)
		}
		if done {
			snap, err := s.l.Snapshot()
			if err != nil {
				return s.fail(err)
			}
			st, ok, err := s.startVectors(snap)
			if err != nil {
				return s.fail(err)
			}
			if ok {
				s.replayed = snap
				return st
			}
			return s.finish(snap)
		}
		if len(reqs) == 0 {
			return s.fail(errf.Errorf("%w: the Delta log read made no progress", ErrProtocol))
		}
		for _, r := range reqs {
			switch r.Kind {
			case delta.ReqList:
				s.objs[r.Path] = Object{Kind: protocol.ObjectList, Path: r.Path}
			case delta.ReqGet:
				s.objs[r.Path] = Object{Kind: protocol.ObjectGet, Path: r.Path, Fresh: r.Fresh}
			case delta.ReqCheckpoint:
				s.startRead(r.Path)
			}
		}
		if len(s.objs) > 0 {
			st := scan.Step{Kind: scan.NeedObjects}
			if len(s.reads) > 0 {
				if rs, ok := s.stepReads(); ok {
					if rs.Kind != scan.NeedData {
						return rs // an Error
					}
					st.Reqs = rs.Reqs
				}
			}
			return st
		}
	}
}

// finish decodes the deletion vectors and builds the snapshot the session ends with.
func (s *Session) finish(snap *delta.Snapshot) scan.Step {
	s.replayed = nil
	deleted, err := s.decodeVectors(snap)
	if err != nil {
		return s.fail(err)
	}
	if s.snap, err = NewSnapshot(snap); err != nil {
		return s.fail(err)
	}
	for i, d := range deleted {
		s.snap.Table.Files[i].Deleted = d
	}
	s.snap.Resumed = s.l.Resumed()
	if s.snap.Resumed {
		s.snap.CommitsRead = s.snap.Version - s.l.ResumedFrom()
	}
	if s.opts.KeepState {
		if st := s.l.State(); st != nil {
			s.snap.State = delta.EncodeState(st)
		}
	}
	return scan.Step{Kind: scan.Done}
}

// startRead opens the engine's scanner on a checkpoint file (every column, no predicate;
// its size is learnt from the host's answer to the first, suffix, request).
func (s *Session) startRead(path string) {
	sc, err := scan.New(scan.Options{MemoryCap: s.opts.MemoryCap, TailSize: s.opts.TailSize})
	if err != nil {
		s.err = err
		return
	}
	r := &cpRead{path: path, sc: sc}
	// The shaper sees each batch's arrays before they are encoded: the rows are read from
	// them, and the IPC the scanner writes anyway is dropped.
	sc.SetShaper(&r.out, func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) ([]*arrowipc.Array, error) {
		r.out = *in
		rows, err := Rows(in, n, cols)
		if err != nil {
			r.err = err
		}
		r.rows = append(r.rows, rows...)
		return cols, nil
	})
	s.reads[len(s.files)] = r
	s.files = append(s.files, path)
}

// stepReads advances every checkpoint read until each needs bytes or has ended; ok is false
// when all ended (their actions were pushed to the Loader).
func (s *Session) stepReads() (scan.Step, bool) {
	var need []scan.FileRange
	for i, r := range s.reads {
		var done bool
		var err error
		if need, done, err = Advance(r.sc, i, need, func() error { return r.err }); err != nil {
			return s.fail(errf.Errorf("checkpoint %s: %w", r.path, err)), true
		}
		if !done {
			continue
		}
		rep := r.sc.Report()
		s.rep.BytesPushed += rep.BytesPushed
		s.rep.Requests += rep.Requests
		acts, err := delta.ActionsFromRows(r.path, r.rows)
		if err == nil {
			err = s.l.PushCheckpoint(r.path, acts, true)
		}
		if err != nil {
			return s.fail(err), true
		}
		delete(s.reads, i)
	}
	if len(need) == 0 {
		return scan.Step{}, false
	}
	return scan.Step{Kind: scan.NeedData, Reqs: need}, true
}

// Objects are the requests of the last NeedObjects step, sorted by path.
func (s *Session) Objects() []Object {
	out := make([]Object, 0, len(s.objs))
	for _, o := range s.objs {
		out = append(out, o)
	}
	sortObjects(out)
	return out
}

// Files is the file table of NeedData steps: the path (relative to the table root) of each
// checkpoint, sidecar and deletion vector file by index. It only grows.
func (s *Session) Files() []string { return s.files }

// Owners says, by file index, which data file a deletion vector file of the file table holds
// the vector of (the first, then " and others" when it holds several), "" for a checkpoint or
// sidecar: a host names it with the vector file in that file's errors (a missing or short
// file, a refusal by the open's scope). Shorter than Files when the last ones are not vectors.
func (s *Session) Owners() []string { return s.owners }

// PushObject answers one object of the last NeedObjects step: for "get" its bytes (found
// false: it does not exist, a 404); for "list" the JSON array of ListEntry under the prefix.
func (s *Session) PushObject(path string, data []byte, found bool) error {
	if s.err != nil {
		return s.err
	}
	o, ok := s.objs[path]
	if !ok {
		return errf.Errorf("%w: %s was not asked for", ErrProtocol, path)
	}
	delete(s.objs, path)
	if o.Kind == protocol.ObjectGet {
		s.rep.BytesPushed += int64(len(data))
		s.rep.Requests++
		if err := s.l.PushObject(path, data, found); err != nil {
			s.err = err
		}
		return s.err
	}
	var ents []ListEntry
	if found {
		var err error
		if ents, err = parseListing(data); err != nil {
			s.err = errf.Errorf("%w: the listing of %s: %v", ErrProtocol, path, err)
			return s.err
		}
	}
	var files []delta.LogFile
	for _, e := range ents {
		if lf, ok := delta.ParseLogName(e.Name); ok {
			lf.Size, lf.ModTime = e.Size, e.ModTime
			files = append(files, lf)
		}
	}
	if err := s.l.PushList(files); err != nil {
		s.err = err
	}
	return s.err
}

// PushFile gives bytes of checkpoint or deletion vector file `file` (NeedData).
func (s *Session) PushFile(file int, off int64, b []byte) error {
	if f, ok := s.dvs[file]; ok && s.replayed != nil {
		f.Add(off, b)
		s.rep.BytesPushed += int64(len(b))
		return nil
	}
	r, ok := s.reads[file]
	if !ok {
		return errf.Errorf("%w: file %d is not being read", ErrProtocol, file)
	}
	return r.sc.Push(off, b)
}

// SetFileSizeOf gives the size of checkpoint file `file`, after a suffix request.
func (s *Session) SetFileSizeOf(file int, n int64) error {
	r, ok := s.reads[file]
	if !ok {
		return errf.Errorf("%w: file %d is not being read", ErrProtocol, file)
	}
	return r.sc.SetFileSize(n)
}

// Push and SetFileSize are file-less: errors on this session (scan.TableSession).
func (s *Session) Push(int64, []byte) error {
	return errf.Errorf("%w: a Delta session takes PushFile", ErrProtocol)
}

func (s *Session) SetFileSize(int64) error {
	return errf.Errorf("%w: a Delta session takes SetFileSizeOf", ErrProtocol)
}

// Report counts the log objects and checkpoint bytes read so far.
func (s *Session) Report() scan.Report { return s.rep }

// Close implements scan.Session.
func (s *Session) Close() error { return nil }

// Snapshot is the result once Next returned Done.
func (s *Session) Snapshot() *Snapshot { return s.snap }

func sortObjects(o []Object) { sort.Slice(o, func(i, j int) bool { return o[i].Path < o[j].Path }) }

// Advance steps a whole-file read by the engine's scanner (a checkpoint, an Iceberg delete
// file) until it needs bytes, appended to need as file k's ranges, or has ended (done). The
// error is batchErr's after a batch (what the scanner's shaper met), the scanner's, or an
// unexpected step.
func Advance(sc *scan.Scanner, k int, need []scan.FileRange, batchErr func() error) ([]scan.FileRange, bool, error) {
	for {
		st := sc.Next()
		switch st.Kind {
		case scan.NeedRanges:
			for _, rg := range st.Ranges {
				need = append(need, scan.FileRange{File: k, Range: rg})
			}
			return need, false, nil
		case scan.Batch, scan.Metadata:
			if err := batchErr(); err != nil {
				return need, false, err
			}
		case scan.Done:
			return need, true, nil
		case scan.Error:
			return need, false, st.Err
		default:
			return need, false, errf.Errorf("%w: step %s", ErrProtocol, st.Kind)
		}
	}
}
