package delta

import "errors"

// A load of the latest version resumes from a stored State (LoaderOptions.Resume) instead of
// the checkpoint: with a listing, when the listing shows the state's commit as anchored and
// every commit after it, only those commits are read; without one, the state's commit is
// fetched again (Fresh: never from a cache) in the same round as the first probe batch after
// it, and its bytes must be the anchored ones. A state the log contradicts (the table went
// back, or was replaced) is dropped and the log read from its checkpoint as without one: a
// stored state never decides what "latest" is on its own.

// errStale answers a request of a dropped resume: its answer is ignored.
var errStale = errors.New("delta: the answer of a dropped resume")

func ignoreStale(err error) error {
	if errors.Is(err, errStale) {
		return nil
	}
	return err
}

// startResumeProbe asks, without a listing, for the state's commit and the first probe batch
// after it.
func (l *Loader) startResumeProbe() {
	l.want(Request{Kind: ReqGet, Path: logDir + CommitName(l.resume.Version), Fresh: true})
	l.validating = true
	l.prober = NewProber(l.resume.Version, -1, l.opts.ProbeBatch)
	l.wantProbes()
	l.state = stFetch
}

// validate checks the state's commit as fetched again; a mismatch drops the resume, the rest
// of its round is ignored, and the next round starts the load over (restart).
func (l *Loader) validate(data []byte, found bool) {
	l.validating = false
	if found && l.resume.Anchor.matches(int64(len(data)), 0, data) {
		return
	}
	l.resume, l.prober = nil, nil
	for p := range l.pending {
		l.stale[p] = true
	}
	l.commits = map[string][]Action{}
	l.anchors = map[string]Anchor{}
	l.restarting = true
}

// restart starts the load over, as without a state, once a dropped resume's round is
// answered; it says whether it did.
func (l *Loader) restart() bool {
	if !l.restarting {
		return false
	}
	l.restarting = false
	l.want(Request{Kind: ReqGet, Path: logDir + "_last_checkpoint"})
	l.state = stWaitLast
	return true
}

// resumeFromListing plans the commits after the state when the listing allows it (ok);
// otherwise the state is dropped and the listing planned as without one.
func (l *Loader) resumeFromListing(files []LogFile) bool {
	if l.resume == nil {
		return false
	}
	names, latest, ok := resumeListing(files, l.resume)
	if !ok {
		l.resume = nil
		return false
	}
	l.files, l.latest = files, latest
	for _, name := range names {
		f, _ := ParseLogName(name)
		l.plan = append(l.plan, f)
		l.want(Request{Kind: ReqGet, Path: logDir + name})
	}
	l.state = stFetch
	return true
}

// Resumed says whether the snapshot was replayed from the stored state.
func (l *Loader) Resumed() bool { return l.resume != nil && l.replay != nil }

// State is the replayed state of the snapshot, for a later load to resume from: nil before
// Snapshot succeeded, or when nothing anchors its last commit (it was neither read nor
// listed, as the checkpoint of a table probed without a listing).
func (l *Loader) State() *State {
	if l.replay == nil {
		return nil
	}
	s := l.replay.state()
	name := CommitName(s.Version)
	a, ok := l.anchors[name]
	if !ok && l.resume != nil && l.resume.Version == s.Version {
		a, ok = l.resume.Anchor, true
	}
	for _, f := range l.files {
		if f.Kind == KindCommit && f.Name == name {
			if !ok {
				a = Anchor{Size: f.Size}
			}
			a.ModTime, ok = f.ModTime, true
		}
	}
	if !ok {
		return nil
	}
	s.Anchor = a
	return s
}
