package delta

import "github.com/pqscan/pqscan/internal/errf"

// Prober finds the commits of a table on a host that cannot list (a plain CDN): it asks for
// versions after the starting point in batches and stops at the first missing one. It is a
// state machine: Next returns the versions to GET (in parallel), Push reports each result.
//
// Batches trade bytes for round trips: a 404 costs a request, a missing batch member a round
// trip. With Batch = 1 a table with k new commits costs k+1 round trips; with Batch = 8 about
// k/8+1. A version found after a missing one is a gap (commits are written in order, and
// cleanup only removes the oldest), reported as ErrVersionGap.
type Prober struct {
	next    int64 // first version of the current batch
	target  int64 // -1: latest
	batch   int
	results map[int64]bool
	pending []int64
	commits []int64
	done    bool
	start   int64
}

// NewProber starts after version after (the checkpoint's version, or -1 for none) and probes
// up to target (-1 for the latest), batch versions at a time (at least 1).
func NewProber(after, target int64, batch int) *Prober {
	return &Prober{next: after + 1, target: target, batch: max(batch, 1), results: map[int64]bool{}, start: after}
}

// Next returns the versions to request now (CommitName gives the object name). It returns the
// same batch until every member is pushed, and nil when probing is done.
func (p *Prober) Next() []int64 {
	if p.done {
		return nil
	}
	if p.pending == nil {
		n := p.batch
		if p.target >= 0 {
			n = int(min(int64(n), p.target-p.next+1))
		}
		if n <= 0 {
			p.done = true
			return nil
		}
		for i := 0; i < n; i++ {
			p.pending = append(p.pending, p.next+int64(i))
		}
	}
	var out []int64
	for _, v := range p.pending {
		if _, ok := p.results[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}

// Push records whether version v exists (false for a 404). When the batch is complete it
// decides: all found → next batch; a run of found versions then missing ones → done.
func (p *Prober) Push(v int64, found bool) error {
	if p.done {
		return errf.Errorf("%w: push of version %d after probing ended", ErrOrder, v)
	}
	in := false
	for _, x := range p.pending {
		in = in || x == v
	}
	if !in {
		return errf.Errorf("%w: version %d was not requested", ErrOrder, v)
	}
	p.results[v] = found
	for _, x := range p.pending {
		if _, ok := p.results[x]; !ok {
			return nil
		}
	}
	missing := int64(-1)
	for _, x := range p.pending {
		switch {
		case !p.results[x] && missing < 0:
			missing = x
		case p.results[x] && missing >= 0:
			p.done = true
			return errf.Errorf("%w: %s exists but %s does not", ErrVersionGap, CommitName(x), CommitName(missing))
		case p.results[x]:
			p.commits = append(p.commits, x)
		}
	}
	p.next += int64(len(p.pending))
	p.pending = nil
	if missing >= 0 {
		p.done = true
		switch {
		case p.target >= 0 && missing <= p.target:
			return errf.Errorf("%w: version %d requested, %s is missing", ErrVersionNotFound, p.target, CommitName(missing))
		case p.start < 0 && missing == 0:
			return errf.Errorf("%w: no _last_checkpoint and no %s", ErrNotATable, CommitName(0))
		}
	}
	return nil
}

// Done reports whether probing has ended.
func (p *Prober) Done() bool { return p.done }

// Commits returns the versions found, ascending: CheckpointVersion+1 .. the snapshot version.
func (p *Prober) Commits() []int64 { return p.commits }

// ProbeStart decides where probing starts on a host that cannot list: at the checkpoint that
// _last_checkpoint names (lc may be nil when it was a 404), unless an older version is asked
// for, which then replays from commit 0 (the only other point a CDN lets us find).
func ProbeStart(lc *LastCheckpoint, version int64) (checkpointVersion int64, checkpoint []string, isJSON bool) {
	if lc == nil || version >= 0 && version < lc.Version {
		return -1, nil, false
	}
	names, isJSON := CheckpointNames(lc)
	return lc.Version, names, isJSON
}
