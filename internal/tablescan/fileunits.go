package tablescan

import "github.com/pqscan/pqscan/internal/scan"

// FileUnits cuts a table scan's files into units a host may run at once (Options.FilesFrom,
// FilesTo): runs of whole consecutive files of at most 1.25 target bytes, a larger file
// alone, so the units' outputs in order are the table's. bytes[i] is what file i may cost (its
// size; 0 for a file the partitions or the statistics already skip, which then joins any
// run; a negative size, unknown, counts as target). A unit's Start and End are file indexes;
// Bytes is its files' bytes, for the host's memory budget.
func FileUnits(bytes []int64, target int64) []scan.Unit {
	target = max(target, 1)
	var out []scan.Unit
	for i, b := range bytes {
		if b < 0 {
			b = target
		}
		if n := len(out); n > 0 && out[n-1].Bytes+b <= target+target/4 {
			out[n-1].End, out[n-1].Bytes = int64(i+1), out[n-1].Bytes+b
			continue
		}
		out = append(out, scan.Unit{RowGroup: -1, Start: int64(i), End: int64(i + 1), Bytes: b})
	}
	return out
}

// MergeUnitReports is the report of a table scan run as units (FileUnits): each unit's file
// lines for its own files, the file counts every unit agrees on (the whole table's pruning),
// and the sum of what the units read and returned. reps[k] is units[k]'s report (zero while
// it has not ended).
func MergeUnitReports(units []scan.Unit, reps []scan.Report) scan.Report {
	b := 0 // a unit that has ended: its counters, and what every unit says alike
	for b < len(reps) && reps[b].Files == nil {
		b++
	}
	if b == len(reps) {
		return scan.Report{}
	}
	r := reps[b]
	r.Files = append([]scan.FileReport(nil), reps[b].Files...)
	r.Phases = nil
	for k, u := range reps {
		if k != b {
			addCounters(&r, u)
			r.FilesRead += u.FilesRead
			r.FilesNoResidual += u.FilesNoResidual
			r.Requests += u.Requests
			r.RoundTrips += u.RoundTrips
			r.BytesRequested += u.BytesRequested
		}
		for name, ms := range u.Phases {
			if r.Phases == nil {
				r.Phases = map[string]float64{}
			}
			r.Phases[name] += ms
		}
		if k < len(units) {
			for i := units[k].Start; i < units[k].End && int(i) < len(u.Files) && int(i) < len(r.Files); i++ {
				r.Files[i] = u.Files[i]
			}
		}
	}
	return r
}
