package scan

// MergeUnitReports is the report of a scan split into units: plan is the planning session's
// (footer, slice, statistics, bloom, dictionary and page-index levels, over the whole file),
// units the units' sessions' (the data phase of each unit's rows). Their data counters add
// up; a unit's row-group line adds its pages read and rows matched to the plan's line, and a
// row group whose every unit says why it returned nothing ("filter", "runtime") takes that.
// Requests and RoundTrips add up too: units' round trips overlap in time, so RoundTrips
// counts requests' rounds, not latency. Units and Threads are the host's to set.
func MergeUnitReports(plan Report, units []Report) Report {
	r := plan
	r.RowGroups = append([]RowGroupReport(nil), plan.RowGroups...)
	why := map[int]string{} // per row group: the units' common SkippedBy ("-": they differ)
	for _, u := range units {
		r.PagesAfterLateMat += u.PagesAfterLateMat
		r.RowsScanned += u.RowsScanned
		r.RowsMatched += u.RowsMatched
		r.RowsReturned += u.RowsReturned
		r.BytesRequested += u.BytesRequested
		r.BytesPushed += u.BytesPushed
		r.Requests += u.Requests
		r.RoundTrips += u.RoundTrips
		r.DictionariesLazy += u.DictionariesLazy
		r.RowsAllMatch += u.RowsAllMatch
		r.RuntimeFilters = max(r.RuntimeFilters, u.RuntimeFilters)
		r.RowGroupsSkippedRuntime += u.RowGroupsSkippedRuntime
		r.RowsSkippedRuntime += u.RowsSkippedRuntime
		r.ValuesSkipped += u.ValuesSkipped
		r.PagesCRCUnverified += u.PagesCRCUnverified
		if r.LateMaterialization == "" {
			r.LateMaterialization = u.LateMaterialization
		}
		for k, v := range u.Phases {
			if r.Phases == nil {
				r.Phases = map[string]float64{}
			}
			r.Phases[k] += v
		}
		for _, g := range u.RowGroups {
			if g.SkippedBy == "unit" || g.Index >= len(r.RowGroups) {
				continue
			}
			line := &r.RowGroups[g.Index]
			line.PagesRead += g.PagesRead
			line.RowsMatched += g.RowsMatched
			if w, ok := why[g.Index]; !ok {
				why[g.Index] = g.SkippedBy
			} else if w != g.SkippedBy {
				why[g.Index] = "-"
			}
		}
	}
	for i, w := range why {
		if r.RowGroups[i].SkippedBy == "" && w != "-" {
			r.RowGroups[i].SkippedBy = w
		}
	}
	return r
}
