package delta

import (
	"hash/crc32"
	"sort"

	"github.com/pqscan/pqscan/internal/errf"
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

	// Time travel by timestamp (asof.go): the listing, the latest version, and the search
	// of inCommitTimestamps once the latest snapshot is loaded.
	files    []LogFile
	latest   int64
	resolved bool
	search   *asOfSearch

	// Resuming from a stored state (resume.go): resume is dropped once the log contradicts
	// it, and the load restarts after the round.
	resume     *State
	validating bool   // the state's commit is asked for again
	restarting bool   // the state was dropped: the round's answers are ignored
	anchor     Anchor // of the newest commit read, anchorV
	anchorV    int64
	replay     *Replay // after Snapshot: for State
}

// LoaderOptions configure a Loader.
type LoaderOptions struct {
	Version    int64 // snapshot version; -1 for the latest
	CanList    bool  // the host can list _delta_log/ (S3 listing, local directory)
	ProbeBatch int   // versions probed per round without a listing (default 8)
	// AsOf, when set, asks for the snapshot at a time (milliseconds since the epoch, asof.go)
	// instead of Version; it needs CanList (the commit files' modification times).
	AsOf *int64
	// Resume is a state of the table stored by an earlier load (Loader.State): a load of the
	// latest version then reads only the commits after it, and the listing, or the probe of
	// its own commit, that shows the table still is the one it is of (else it is dropped).
	Resume *State
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
	// Fresh asks the host not to answer from a cache: the object checks the table is still
	// the one a stored state is of.
	Fresh bool
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
	l := &Loader{opts: opts, pending: map[string]Request{}, cpVersion: -1, sidecars: map[string][]Action{}, commits: map[string][]Action{},
		anchorV: -1}
	if opts.Version < 0 && opts.AsOf == nil {
		l.resume = opts.Resume
	}
	return l
}

// Next returns the requests of the current round that have not been answered yet, or
// done=true when Snapshot can be called. An error is final.
func (l *Loader) Next() (reqs []Request, done bool, err error) {
	if l.err != nil {
		return nil, false, l.err
	}
	switch l.state {
	case stStart:
		if l.opts.AsOf != nil && !l.opts.CanList {
			return nil, false, l.fail(errf.Errorf("%w: a timestamp needs the commit times of a listing of _delta_log/, and this host cannot list", ErrVersionNotFound))
		}
		if l.resume != nil && !l.opts.CanList {
			l.startResumeProbe()
		} else if l.opts.CanList {
			l.want(Request{Kind: ReqList, Path: logDir})
			l.state = stWaitList
		} else {
			l.want(Request{Kind: ReqGet, Path: logDir + "_last_checkpoint"})
			l.state = stWaitLast
		}
	case stFetch:
		for l.state == stFetch && len(l.pending) == 0 && l.err == nil {
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
		return l.fail(errf.Errorf("%w: %s was not requested", ErrOrder, path))
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
	if l.resumeFromListing(files) {
		return nil
	}
	version := l.opts.Version
	if l.opts.AsOf != nil {
		version = -1 // the latest first: its metadata says where commit times come from
	}
	plan, err := PlanListing(files, version)
	if err != nil {
		return l.fail(err)
	}
	l.files, l.latest = files, plan.Version
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
	if err := l.answered(path, ReqGet); err != nil || l.restarting {
		return err
	}
	name := path[len(logDir):]
	if l.validating && name == CommitName(l.resume.Version) {
		l.validate(data, found)
		return nil
	}
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
		return l.fail(errf.Errorf("%w: %s", ErrMissingFile, path))
	}
	if !found {
		return nil
	}
	acts, err := ParseCommit(name, data)
	if err != nil {
		return l.fail(err)
	}
	if f.Kind == KindCommit && f.Version > l.anchorV {
		l.anchor, l.anchorV = Anchor{Size: int64(len(data)), CRC: crc32.ChecksumIEEE(data), HasCRC: true}, f.Version
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
		return l.fail(errf.Errorf("%w: %s", ErrMissingFile, path))
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
	if l.restarting { // a dropped resume: as without one
		l.restarting, l.prober = false, nil
		l.want(Request{Kind: ReqGet, Path: logDir + "_last_checkpoint"})
		l.state = stWaitLast
		return
	}
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
	if l.opts.AsOf != nil && !l.resolved {
		l.resolveAsOf()
		return
	}
	l.state = stDone
}

// resolveAsOf runs once the latest snapshot (then each search round) is loaded: it picks the
// version of the time asked for and plans its snapshot, reusing what is already loaded.
func (l *Loader) resolveAsOf() {
	t := *l.opts.AsOf
	if l.search == nil {
		ict, err := ictOf(l.latestMetadata())
		if err != nil {
			l.fail(err)
			return
		}
		if !ict.on || ict.from > 0 && t < ict.at {
			vs, ts, err := fileTimes(l.files)
			if err != nil {
				l.fail(err)
				return
			}
			target := int64(-1)
			for i, v := range vs {
				if ts[i] <= t && (!ict.on || v < ict.from) {
					target = v
				}
			}
			if target < 0 {
				l.fail(asOfError(t, ts[0], vs[0]))
				return
			}
			l.travel(target)
			return
		}
		l.search = &asOfSearch{t: t, lo: ict.from - 1, hi: l.latest + 1, listed: map[int64]bool{}}
		if ict.from > 0 {
			l.search.lo = ict.from // its timestamp is the enablement's, at or before t
		}
		for _, f := range l.files {
			l.search.listed[f.Version] = l.search.listed[f.Version] || f.Kind == KindCommit
		}
	}
	for name, acts := range l.commits {
		if f, _ := ParseLogName(name); f.Kind == KindCommit && f.Version > l.search.lo && f.Version < l.search.hi {
			ts, err := inCommitTimestamp(name, acts)
			if err != nil {
				l.fail(err)
				return
			}
			l.search.know(f.Version, ts)
		}
	}
	if probes := l.search.next(); len(probes) > 0 {
		for _, v := range probes {
			l.want(Request{Kind: ReqGet, Path: logDir + CommitName(v)})
		}
		return
	}
	if l.search.lo < 0 {
		l.fail(asOfError(t, l.search.hiTS, l.search.hi))
		return
	}
	l.travel(l.search.lo)
}

// travel plans the snapshot of version v after the latest was loaded: commits already read
// are not asked for again, nor the checkpoint when it is the same.
func (l *Loader) travel(v int64) {
	l.resolved = true
	plan, err := PlanListing(l.files, v)
	if err != nil {
		l.fail(err)
		return
	}
	if plan.CheckpointVersion != l.cpVersion {
		l.cpActs, l.sidecars, l.sidecarOK = nil, map[string][]Action{}, false
		l.setCheckpoint(plan.CheckpointVersion, plan.Checkpoint, plan.CheckpointJSON)
	}
	l.plan = nil
	for _, name := range plan.Commits {
		f, _ := ParseLogName(name)
		l.plan = append(l.plan, f)
		if _, ok := l.commits[name]; !ok {
			l.want(Request{Kind: ReqGet, Path: logDir + name})
		}
	}
}

// latestMetadata is the metaData of what is loaded: the last in the commits, else the
// checkpoint's.
func (l *Loader) latestMetadata() *Metadata {
	for i := len(l.plan) - 1; i >= 0; i-- {
		acts := l.commits[l.plan[i].Name]
		for j := len(acts) - 1; j >= 0; j-- {
			if acts[j].Metadata != nil {
				return acts[j].Metadata
			}
		}
	}
	for _, acts := range l.cpActs {
		for _, a := range acts {
			if a.Metadata != nil {
				return a.Metadata
			}
		}
	}
	return nil
}

// Snapshot replays what was loaded. It is valid once Next reported done.
func (l *Loader) Snapshot() (*Snapshot, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.state != stDone {
		return nil, errf.Errorf("%w: Snapshot before the load is done", ErrOrder)
	}
	r := NewReplay()
	if l.resume != nil {
		r = replayFrom(l.resume)
	} else if l.cpVersion >= 0 {
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
	snap, err := r.Snapshot()
	if err == nil {
		l.replay = r
	}
	return snap, err
}
