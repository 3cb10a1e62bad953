package tailcache

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/scan"
)

// Plan returns the stored plan of scans with options fingerprint fp when the File opened
// from the stored tail and the plan is of the same version (size and validators): the data
// ranges a scan with the same options read last time, which a returning scan fetches at once
// (internal/prefetch). nil otherwise.
func (l *Link) Plan(fp string) *metacache.Plan {
	if !l.FromStore() {
		return nil
	}
	p := l.c.Plan(l.url, fp)
	if p == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry
	if p.Size != e.Size || p.ETag != e.ETag || p.LastModified != e.LastModified {
		return nil
	}
	l.setPlan(fp, p.Ranges)
	return p
}

// KeepPlan stores the plan of a complete scan with options fingerprint fp: the ranges it
// asked (asked) that the entry does not hold, when they are at most metacache.PlanMaxRanges
// and PlanMaxBytes and cover other bytes than the plan it replayed or the last one stored.
// The plan is of the entry's version (its size and validators, which every response of the
// File's source was checked against); a file without a validator keeps no plan, as it keeps
// no tail.
func (l *Link) KeepPlan(fp string, asked []scan.Range) {
	if l == nil || len(asked) > metacache.PlanMaxRanges {
		return
	}
	l.mu.Lock()
	e := l.entry
	if e == nil || !e.Versioned() {
		l.mu.Unlock()
		return
	}
	p := &metacache.Plan{Size: e.Size, ETag: e.ETag, LastModified: e.LastModified}
	for _, r := range asked {
		if r.Off >= 0 && r.Len > 0 && r.End() <= e.Size && !e.Covers(r.Off, r.End()) && !slices.Contains(p.Ranges, r) {
			p.Ranges = append(p.Ranges, r)
		}
	}
	if len(p.Ranges) == 0 || httprange.Total(p.Ranges) > metacache.PlanMaxBytes || l.plans[fp] == planKey(p.Ranges) {
		l.mu.Unlock()
		return
	}
	l.setPlan(fp, p.Ranges)
	l.mu.Unlock()
	l.c.PutPlan(l.url, fp, p)
}

// setPlan records rs as the plan of fp; l.mu is held.
func (l *Link) setPlan(fp string, rs []scan.Range) {
	if l.plans == nil {
		l.plans = map[string]string{}
	}
	l.plans[fp] = planKey(rs)
}

// planKey names the bytes rs cover: a scan that read the same bytes in other pieces (a
// round's ranges are cut by what is in flight) stores nothing.
func planKey(rs []scan.Range) string {
	rs = slices.SortedFunc(slices.Values(rs), func(a, b scan.Range) int { return cmp.Compare(a.Off, b.Off) })
	var out []scan.Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Off <= out[n-1].End() {
			out[n-1].Len = max(out[n-1].End(), r.End()) - out[n-1].Off
			continue
		}
		out = append(out, r)
	}
	return fmt.Sprint(out)
}
