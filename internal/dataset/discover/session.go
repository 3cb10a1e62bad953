package discover

import (
	"iter"
	"sort"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonw"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

// SnapshotSession is a session of a table's objects: a Delta or Iceberg snapshot session,
// which the discovery goes on as, or a discovery (the module exports all three alike).
type SnapshotSession interface {
	scan.TableSession
	Objects() []deltasession.Object
	PushObject(path string, data []byte, found bool) error
	Files() []string
	Owners() []string
	Snapshot() *deltasession.Snapshot
}

// answer is a pushed object.
type answer = Probe

// Session is one discovery. Not safe for concurrent use.
//
// The algorithm (find.go) is written as straight-line code over a coroutine (iter.Pull):
// each request yields its objects and resumes with their answers, so the decision reads in
// the order the host sees the requests.
type Session struct {
	opts Options
	pull func() ([]Object, bool)
	stop func()

	asked map[string]Object // the last NeedObjects step's objects not yet answered
	got   map[string]answer // their answers, for the algorithm

	inner  SnapshotSession
	format string
	// pre answers the snapshot session's first objects from what the probes read: by path
	// for "get" (each once), and the probe's listing for its "list".
	pre     map[string]answer
	preList []byte

	res *Result
	err error
	rep scan.Report
}

// New starts a discovery; it does no I/O.
func New(o Options) (*Session, error) {
	if (o.URL == "") == (o.Path == "") {
		return nil, errf.Errorf("%w: give a URL or a local path (one of them)", ErrOptions)
	}
	if o.Path != "" && o.Glob && o.Abs == "" {
		return nil, errf.Errorf("%w: a local glob needs its absolute path (abs)", ErrOptions)
	}
	s := &Session{opts: o, asked: map[string]Object{}, got: map[string]answer{}, pre: map[string]answer{}}
	s.pull, s.stop = iter.Pull(s.run)
	return s, nil
}

// run is the algorithm as a sequence of requests; it ends with s.res, s.inner or s.err set.
func (s *Session) run(yield func([]Object) bool) {
	f := finder{s: s, yield: yield}
	var err error
	if s.opts.URL != "" {
		err = f.http()
	} else {
		err = f.local()
	}
	if err != nil && err != errStopped && s.err == nil {
		s.err = err
	}
}

func (s *Session) fail(err error) scan.Step {
	if s.err == nil {
		s.err = err
	}
	return scan.Step{Kind: scan.Error, Err: s.err}
}

// Next advances the discovery: NeedObjects, then (once it goes on as a snapshot session)
// that session's NeedObjects and NeedData, then Done (Result is ready) or Error.
func (s *Session) Next() scan.Step {
	for {
		switch {
		case s.err != nil:
			return scan.Step{Kind: scan.Error, Err: s.err}
		case s.res != nil:
			return scan.Step{Kind: scan.Done}
		case len(s.asked) > 0:
			return s.fail(errf.Errorf("%w: Next with %d objects unanswered", ErrProtocol, len(s.asked)))
		case s.inner != nil:
			return s.nextInner()
		}
		objs, ok := s.pull()
		if !ok {
			s.stop()
			if s.err == nil && s.res == nil && s.inner == nil {
				s.err = errf.Errorf("%w: the discovery ended without a result", ErrProtocol)
			}
			continue
		}
		for _, o := range objs {
			s.asked[o.Path] = o
		}
		return scan.Step{Kind: scan.NeedObjects}
	}
}

// nextInner advances the snapshot session, answering its objects from the probes' reads.
func (s *Session) nextInner() scan.Step {
	for {
		st := s.inner.Next()
		switch st.Kind {
		case scan.Error:
			return s.fail(s.innerErr(st.Err))
		case scan.Done:
			s.res = &Result{Snapshot: s.inner.Snapshot(), Format: s.format}
			return scan.Step{Kind: scan.Done}
		case scan.NeedObjects:
			left := 0
			for _, o := range s.inner.Objects() {
				a, ok := s.pre[o.Path]
				if o.Kind == protocol.ObjectList && s.preList != nil {
					a, ok = answer{s.preList, true}, true
				}
				if !ok || o.Absolute {
					left++
					continue
				}
				delete(s.pre, o.Path)
				if err := s.inner.PushObject(o.Path, a.Data, a.Found); err != nil {
					return s.fail(s.innerErr(err))
				}
			}
			if left == 0 && len(st.Reqs) == 0 {
				continue
			}
			if left == 0 {
				// Only the checkpoint ranges of the round are left: they are asked again by
				// the NeedData step that follows.
				continue
			}
		}
		return st
	}
}

// innerErr names the table in a snapshot session's error and marks it as the table format's.
func (s *Session) innerErr(err error) error {
	m := ErrDelta
	if s.format == "iceberg" {
		m = ErrIceberg
	}
	// The mark's error kind comes after every sentinel's (protocol), so a precise one wins.
	return mark(errf.Errorf("%s: %w", s.label(), err), m)
}

// Objects are the requests of the last NeedObjects step, sorted by path.
func (s *Session) Objects() []Object {
	if s.inner != nil && len(s.asked) == 0 {
		return s.inner.Objects()
	}
	out := make([]Object, 0, len(s.asked))
	for _, o := range s.asked {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// PushObject answers one object of the last NeedObjects step (see the Kind constants for
// what each kind's answer is). data is copied.
func (s *Session) PushObject(path string, data []byte, found bool) error {
	if s.err != nil {
		return s.err
	}
	if _, ok := s.asked[path]; !ok {
		if s.inner != nil {
			return s.inner.PushObject(path, data, found)
		}
		return errf.Errorf("%w: %s was not asked for", ErrProtocol, path)
	}
	delete(s.asked, path)
	s.got[path] = answer{append([]byte(nil), data...), found}
	s.rep.BytesPushed += int64(len(data))
	s.rep.Requests++
	return nil
}

// Format is the table format once the discovery goes on as a snapshot session ("delta",
// "iceberg"), or the result's; "" before.
func (s *Session) Format() string {
	if s.res != nil {
		return s.res.Format
	}
	return s.format
}

// Result is the outcome once Next returned Done, else nil.
func (s *Session) Result() *Result { return s.res }

// Snapshot is the table's snapshot once Next returned Done on a table (nil otherwise, or
// before).
func (s *Session) Snapshot() *deltasession.Snapshot {
	if s.res == nil {
		return nil
	}
	return s.res.Snapshot
}

// Files and Owners are the snapshot session's file table (NeedData).
func (s *Session) Files() []string {
	if s.inner == nil {
		return nil
	}
	return s.inner.Files()
}

func (s *Session) Owners() []string {
	if s.inner == nil {
		return nil
	}
	return s.inner.Owners()
}

// PushFile and SetFileSizeOf answer the snapshot session's NeedData steps.
func (s *Session) PushFile(file int, off int64, b []byte) error {
	if s.inner == nil {
		return errf.Errorf("%w: PushFile before a NeedData step", ErrProtocol)
	}
	return s.inner.PushFile(file, off, b)
}

func (s *Session) SetFileSizeOf(file int, n int64) error {
	if s.inner == nil {
		return errf.Errorf("%w: SetFileSizeOf before a NeedData step", ErrProtocol)
	}
	return s.inner.SetFileSizeOf(file, n)
}

// Push and SetFileSize are errors: the session's files are named (PushFile).
func (s *Session) Push(int64, []byte) error {
	return errf.Errorf("%w: a discovery takes PushObject and PushFile", ErrProtocol)
}
func (s *Session) SetFileSize(int64) error { return s.Push(0, nil) }

// Report counts the objects read, the snapshot session's included.
func (s *Session) Report() scan.Report {
	r := s.rep
	if s.inner != nil {
		ir := s.inner.Report()
		r.Requests += ir.Requests
		r.BytesPushed += ir.BytesPushed
	}
	return r
}

// Close ends the coroutine.
func (s *Session) Close() error {
	s.stop()
	return nil
}

// detected ends the discovery with the table's format (Options.Detected).
func (s *Session) detected(format string) error {
	s.opts.Detected(Detection{Format: format, List: s.preList, Probes: s.pre})
	s.res = &Result{Format: format}
	return nil
}

// startDelta and startIceberg go on as the snapshot session.
func (s *Session) startDelta(canList bool) error {
	if s.opts.Detected != nil {
		return s.detected("delta")
	}
	root := s.opts.RootURL
	if root == "" {
		root = s.opts.URL
	}
	d, err := deltasession.New(deltasession.Options{Version: s.opts.Version, AsOf: s.opts.AsOf, CanList: canList,
		TailSize: s.opts.TailSize, MemoryCap: s.opts.MemoryCap, Root: root, Resume: s.opts.Resume, KeepState: s.opts.KeepState})
	if err != nil {
		return mark(err, ErrOptions)
	}
	s.inner, s.format = d, "delta"
	return nil
}

func (s *Session) startIceberg(canList bool) error {
	if s.opts.Detected != nil {
		return s.detected("iceberg")
	}
	ice, err := icebergsession.New(icebergsession.Options{Metadata: s.opts.Metadata, CanList: canList,
		SnapshotID: s.opts.SnapshotID, AsOf: s.opts.AsOf, PathMap: s.opts.PathMap})
	if err != nil {
		return mark(err, ErrOptions)
	}
	s.inner, s.format = ice, "iceberg"
	return nil
}

// listEntries is the JSON of a "list" answer, as encoding/json writes the []ListEntry.
func listEntries(es []ListEntry) []byte {
	if es == nil {
		return []byte("null")
	}
	b := []byte{'['}
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		o := jsonw.Begin(b)
		o.Str(`,"name":`, e.Name)
		o.Int(`,"size":`, e.Size)
		if e.ModTime != 0 {
			o.Int(`,"modTime":`, e.ModTime)
		}
		b = o.End()
	}
	return append(b, ']')
}
