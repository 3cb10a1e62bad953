package delta

import (
	"fmt"
	"sort"
)

// Loader drives the whole log read as a state machine, in the engine's sans-IO shape: Next
// returns the requests to perform now (all of one round, to be fetched in parallel), the
// Push methods hand back their results, and Snapshot replays once Next reports done. It
// composes PlanListing or ProbeStart + Prober with Replay, so that an integration only moves
// bytes and decodes checkpoint Parquet.
//
// Round trips: with a listing host, one listing, then one round for the checkpoint and every
// commit together (plus one for V2 sidecars); without one, _last_checkpoint, then the
// checkpoint and the first probe batch together, then one round per further batch.
type Loader struct {
	opts    LoaderOptions
	state   loaderState
	err     error
	pending map[string]Request // path -> request not yet answered

	cpVersion int64
	cpNames   []string
	cpActs    [][]Action
	sidecars  map[string][]Action
	sidecarOK bool                // sidecar round issued
	commits   map[string][]Action // by base name: commits and compactions
	plan      []LogFile           // listing mode: the commits (or compactions) to read
	prober    *Prober
}

// LoaderOptions configure a Loader.
type LoaderOptions struct {
	Version    int64 // snapshot version; -1 for the latest
	CanList    bool  // the host can list _delta_log/ (S3 listing, local directory)
	ProbeBatch int   // versions probed per round without a listing (default 8)
}

// RequestKind says what the host must do for a Request.
type RequestKind uint8

const (
	// ReqList: list every object under Path (the `_delta_log/` prefix) and push the entries
	// with PushList. A listing may take several pages (listing.Pager).
	ReqList RequestKind = iota + 1
	// ReqGet: GET the whole object at Path and push it with PushObject (found=false on 404).
	ReqGet
	// ReqCheckpoint: read the checkpoint or sidecar Parquet file at Path with the engine,
	// convert its rows with ActionsFromRows, and push them with PushCheckpoint.
	ReqCheckpoint
)

// Request is one thing the Loader needs; Path is relative to the table root.
type Request struct {
	Kind RequestKind
	Path string
}

type loaderState uint8

const (
	stStart loaderState = iota
	stWaitList
	stWaitLast
	stFetch
	stDone
)

const logDir = "_delta_log/"

// NewLoader returns a Loader for one snapshot.
func NewLoader(opts LoaderOptions) *Loader {
	if opts.ProbeBatch <= 0 {
		opts.ProbeBatch = 8
	}
	return &Loader{opts: opts, pending: map[string]Request{}, cpVersion: -1, sidecars: map[string][]Action{}, commits: map[string][]Action{}}
}

// Next returns the requests of the current round that have not been answered yet, or
// done=true when Snapshot can be called. An error is final.
func (l *Loader) Next() (reqs []Request, done bool, err error) {
	if l.err != nil {
		return nil, false, l.err
	}
	switch l.state {
	case stStart:
		if l.opts.CanList {
			l.want(Request{Kind: ReqList, Path: logDir})
			l.state = stWaitList
		} else {
			l.want(Request{Kind: ReqGet, Path: logDir + "_last_checkpoint"})
			l.state = stWaitLast
		}
	case stFetch:
		if len(l.pending) == 0 {
			l.advance()
		}
	}
	if l.err != nil {
		return nil, false, l.err
	}
	if l.state == stDone {
		return nil, true, nil
	}
	for _, r := range l.pending {
		reqs = append(reqs, r)
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Path < reqs[j].Path })
	return reqs, false, nil
}

func (l *Loader) want(r Request) { l.pending[r.Path] = r }

func (l *Loader) fail(err error) error {
	if l.err == nil {
		l.err = err
	}
	return l.err
}

// answered checks that path was asked for with kind and marks it answered.
func (l *Loader) answered(path string, kind RequestKind) error {
	if r, ok := l.pending[path]; !ok || r.Kind != kind {
		return l.fail(fmt.Errorf("%w: %s was not requested", ErrOrder, path))
	}
	delete(l.pending, path)
	return nil
}

// PushList answers ReqList with the entries of _delta_log/ (ParseLogName of each name; other
// names are ignored).
func (l *Loader) PushList(files []LogFile) error {
	if err := l.answered(logDir, ReqList); err != nil {
		return err
	}
	plan, err := PlanListing(files, l.opts.Version)
	if err != nil {
		return l.fail(err)
	}
	l.setCheckpoint(plan.CheckpointVersion, plan.Checkpoint, plan.CheckpointJSON)
	for _, name := range plan.Commits {
		f, _ := ParseLogName(name)
		l.plan = append(l.plan, f)
		l.want(Request{Kind: ReqGet, Path: logDir + name})
	}
	l.state = stFetch
	return nil
}

func (l *Loader) setCheckpoint(v int64, names []string, isJSON bool) {
	l.cpVersion, l.cpNames = v, names
	kind := ReqCheckpoint
	if isJSON {
		kind = ReqGet
	}
	for _, n := range names {
		l.want(Request{Kind: kind, Path: logDir + n})
	}
}

// PushObject answers a ReqGet: the object's bytes, or found=false for a 404.
func (l *Loader) PushObject(path string, data []byte, found bool) error {
	if err := l.answered(path, ReqGet); err != nil {
		return err
	}
	name := path[len(logDir):]
	if name == "_last_checkpoint" {
		var lc *LastCheckpoint
		if found {
			var err error
			if lc, err = ParseLastCheckpoint(data); err != nil {
				return l.fail(err)
			}
		}
		cv, names, isJSON := ProbeStart(lc, l.opts.Version)
		l.setCheckpoint(cv, names, isJSON)
		l.prober = NewProber(cv, l.opts.Version, l.opts.ProbeBatch)
		l.wantProbes()
		l.state = stFetch
		return nil
	}
	f, _ := ParseLogName(name)
	if l.prober != nil && f.Kind == KindCommit {
		if err := l.prober.Push(f.Version, found); err != nil {
			return l.fail(err)
		}
	} else if !found {
		return l.fail(fmt.Errorf("%w: %s", ErrMissingFile, path))
	}
	if !found {
		return nil
	}
	acts, err := ParseCommit(name, data)
	if err != nil {
		return l.fail(err)
	}
	if f.Kind == KindCheckpointV2 {
		l.cpActs = append(l.cpActs, acts)
		return nil
	}
	l.commits[name] = acts
	return nil
}

// PushCheckpoint answers a ReqCheckpoint with the actions of that Parquet file (found=false
// when it is missing, which fails the load).
func (l *Loader) PushCheckpoint(path string, actions []Action, found bool) error {
	if err := l.answered(path, ReqCheckpoint); err != nil {
		return err
	}
	if !found {
		return l.fail(fmt.Errorf("%w: %s", ErrMissingFile, path))
	}
	if name := path[len(logDir):]; len(name) > len("_sidecars/") && name[:len("_sidecars/")] == "_sidecars/" {
		l.sidecars[name] = actions
		return nil
	}
	l.cpActs = append(l.cpActs, actions)
	return nil
}

func (l *Loader) wantProbes() {
	for _, v := range l.prober.Next() {
		l.want(Request{Kind: ReqGet, Path: logDir + CommitName(v)})
	}
}

// advance starts the next round once the current one is fully answered.
func (l *Loader) advance() {
	if l.prober != nil && !l.prober.Done() {
		l.wantProbes()
		if len(l.pending) > 0 {
			return
		}
	}
	if !l.sidecarOK {
		l.sidecarOK = true
		for _, acts := range l.cpActs {
			for _, n := range SidecarNames(acts) {
				l.want(Request{Kind: ReqCheckpoint, Path: logDir + n})
			}
		}
		if len(l.pending) > 0 {
			return
		}
	}
	l.state = stDone
}

// Snapshot replays what was loaded. It is valid once Next reported done.
func (l *Loader) Snapshot() (*Snapshot, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.state != stDone {
		return nil, fmt.Errorf("%w: Snapshot before the load is done", ErrOrder)
	}
	r := NewReplay()
	if l.cpVersion >= 0 {
		for _, acts := range l.cpActs {
			if err := r.Checkpoint(l.cpVersion, acts); err != nil {
				return nil, err
			}
		}
		names := make([]string, 0, len(l.sidecars))
		for n := range l.sidecars {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := r.Sidecar(n, l.sidecars[n]); err != nil {
				return nil, err
			}
		}
	}
	plan := l.plan
	if l.prober != nil {
		for _, v := range l.prober.Commits() {
			plan = append(plan, LogFile{Name: CommitName(v), Kind: KindCommit, Version: v})
		}
	}
	for _, f := range plan {
		var err error
		if f.Kind == KindCompaction {
			err = r.Compacted(f.Version, f.End, l.commits[f.Name])
		} else {
			err = r.Commit(f.Version, l.commits[f.Name])
		}
		if err != nil {
			return nil, err
		}
	}
	return r.Snapshot()
}
