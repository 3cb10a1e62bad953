package delta

// A load of the latest version resumes from a stored State (LoaderOptions.Resume) instead of
// the checkpoint: with a listing, when the listing shows the state's commit as anchored and
// every commit after it, only those commits are read; without one, the state's commit is
// fetched again (Fresh: never from a cache) in the same round as the first probe batch after
// it, and its bytes must be the anchored ones. A state the log contradicts (the table went
// back, or was replaced) is dropped and the log read from its checkpoint as without one: a
// stored state never decides what "latest" is on its own.

// startResumeProbe asks, without a listing, for the state's commit and the first probe batch
// after it.
func (l *Loader) startResumeProbe() {
	l.want(Request{Kind: ReqGet, Path: logDir + CommitName(l.resume.Version), Fresh: true})
	l.validating = true
	l.prober = NewProber(l.resume.Version, -1, l.opts.ProbeBatch)
	l.wantProbes()
	l.state = stFetch
}

// validate checks the state's commit as fetched again; a mismatch drops the resume: the
// other answers of its round are ignored, and the next round starts the load over (advance).
func (l *Loader) validate(data []byte, found bool) {
	l.validating = false
	if !found || !l.resume.Anchor.matches(int64(len(data)), 0, data) {
		l.resume, l.restarting = nil, true
	}
}

// resumeFromListing plans the commits after the state when the listing allows it (ok);
// otherwise the state is dropped and the listing planned as without one.
func (l *Loader) resumeFromListing(files []LogFile) bool {
	if l.resume == nil {
		return false
	}
	n, ok := resumeListing(files, l.resume)
	if !ok {
		l.resume = nil
		return false
	}
	l.files, l.latest = files, l.resume.Version+n
	for v := l.resume.Version + 1; v <= l.latest; v++ {
		l.plan = append(l.plan, LogFile{Name: CommitName(v), Kind: KindCommit, Version: v})
		l.want(Request{Kind: ReqGet, Path: logDir + CommitName(v)})
	}
	l.state = stFetch
	return true
}

// Resumed says whether the snapshot was replayed from the stored state.
func (l *Loader) Resumed() bool { return l.resume != nil && l.replay != nil }

// ResumedFrom is the version of the stored state the snapshot was replayed from (-1: none).
func (l *Loader) ResumedFrom() int64 {
	if !l.Resumed() {
		return -1
	}
	return l.resume.Version
}

// State is the replayed state of the snapshot, for a later load to resume from: nil before
// Snapshot succeeded, or when nothing anchors its last commit (it was neither read nor
// listed, as the checkpoint of a table probed without a listing).
func (l *Loader) State() *State {
	if l.replay == nil {
		return nil
	}
	s := l.replay.state()
	a, ok := l.anchor, l.anchorV == s.Version
	if !ok && l.resume != nil {
		a, ok = l.resume.Anchor, l.resume.Version == s.Version
	}
	for _, f := range l.files {
		if !ok && f.Kind == KindCommit && f.Version == s.Version {
			a, ok = Anchor{Size: f.Size, ModTime: f.ModTime}, true
		}
	}
	if !ok {
		return nil
	}
	s.Anchor = a
	return s
}
