package delta

import (
	"sort"
	"strconv"
	"time"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// Time travel by timestamp (Delta's "timestamp as of"): the snapshot is the latest version
// whose commit timestamp is at or before the given time. A commit's timestamp is its
// commitInfo.inCommitTimestamp from the version that enabled inCommitTimestamp on
// (delta.enableInCommitTimestamps, with delta.inCommitTimestampEnablementVersion and
// ...EnablementTimestamp when it was enabled after creation), and the commit file's
// modification time before it; modification times are made increasing (each at least one
// millisecond after the previous commit's), as Delta's history does, since a copy or a clock
// can reorder them. Whether inCommitTimestamp is on is read from the latest snapshot's
// metadata, so the Loader loads the latest snapshot first.

// ictConfig is the inCommitTimestamp state of a table's latest metadata: on, from version
// from, whose timestamp is at.
type ictConfig struct {
	on   bool
	from int64
	at   int64 // ms; meaningful when from > 0
}

func ictOf(m *Metadata) (ictConfig, error) {
	if m == nil || m.Config("delta.enableInCommitTimestamps") != "true" {
		return ictConfig{}, nil
	}
	c := ictConfig{on: true}
	if s := m.Config("delta.inCommitTimestampEnablementVersion"); s != "" {
		v, err1 := strconv.ParseInt(s, 10, 64)
		at, err2 := strconv.ParseInt(m.Config("delta.inCommitTimestampEnablementTimestamp"), 10, 64)
		if err1 != nil || err2 != nil || v < 0 {
			return c, errf.Errorf("%w: inCommitTimestamp enablement version %q, timestamp %q", ErrMalformed, s,
				m.Config("delta.inCommitTimestampEnablementTimestamp"))
		}
		c.from, c.at = v, at
	}
	return c, nil
}

// inCommitTimestamp returns the commitInfo.inCommitTimestamp of a commit's actions.
func inCommitTimestamp(name string, acts []Action) (int64, error) {
	for _, a := range acts {
		if a.CommitInfo == nil {
			continue
		}
		// A commitInfo that is not an object, or whose inCommitTimestamp is not an
		// integer, has none.
		if v, err := jsonv.Parse(a.CommitInfo); err == nil && v.Kind == jsonv.Object {
			if t, ok := v.Get("inCommitTimestamp").Int64(); ok {
				return t, nil
			}
		}
	}
	return 0, errf.Errorf("%w: %s has no commitInfo.inCommitTimestamp, and the table enables it", ErrMalformed, name)
}

// fileTimes returns the listed commits' versions in order and their modification times made
// increasing; an unknown time (0) is an error naming the commit.
func fileTimes(files []LogFile) (vs, ts []int64, err error) {
	cs := map[int64]int64{}
	for _, f := range files {
		if f.Kind == KindCommit {
			if f.ModTime == 0 {
				return nil, nil, errf.Errorf("%w: the listing gives no modification time for %s, needed to travel to a timestamp", ErrVersionNotFound, f.Name)
			}
			cs[f.Version] = f.ModTime
			vs = append(vs, f.Version)
		}
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	for i, v := range vs {
		t := cs[v]
		if i > 0 {
			t = max(t, ts[i-1]+1)
		}
		ts = append(ts, t)
	}
	return vs, ts, nil
}

// asOfSearch finds the last commit at or before t among versions lo..hi whose timestamps are
// only known once fetched (inCommitTimestamp): each round asks for up to asOfProbes versions
// spread over the range still open.
type asOfSearch struct {
	t      int64
	lo, hi int64 // lo: last version known at or before t (or from-1); hi: first known after (or latest+1)
	hiTS   int64 // hi's timestamp, once known
	listed map[int64]bool
}

const asOfProbes = 8

// know narrows the range with version v's timestamp ts.
func (s *asOfSearch) know(v, ts int64) {
	if v <= s.lo || v >= s.hi {
		return
	}
	if ts <= s.t {
		s.lo = v
	} else {
		s.hi, s.hiTS = v, ts
	}
}

// next returns the listed versions to fetch next; none when the search is over (lo is the
// answer). Versions the listing lacks (cleaned up) are skipped.
func (s *asOfSearch) next() []int64 {
	var cand []int64
	for v := s.lo + 1; v < s.hi; v++ {
		if s.listed[v] {
			cand = append(cand, v)
		}
	}
	if len(cand) <= asOfProbes {
		return cand
	}
	out := make([]int64, asOfProbes)
	for i := range out {
		out[i] = cand[(i+1)*len(cand)/(asOfProbes+1)]
	}
	return out
}

// asOfError is the error for a time before every commit.
func asOfError(t, first int64, v int64) error {
	return errf.Errorf("%w: no commit at or before %s: the earliest, version %d, is at %s", ErrVersionNotFound,
		time.UnixMilli(t).UTC().Format(time.RFC3339Nano), v, time.UnixMilli(first).UTC().Format(time.RFC3339Nano))
}
