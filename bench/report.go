package bench

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/scan"
)

// QueryResult is one query on one file: the engine's scan, the brute-force truth, the bound
// and where the fetched bytes went.
type QueryResult struct {
	Query     Query
	Truth     Truth
	Result    Result
	Bound     Bound
	Breakdown Breakdown
	Err       error
	layout    *Layout
}

// Correct reports whether the engine returned the brute-force rows (count, order-sensitive
// checksum, and the value sum when projected).
func (r *QueryResult) Correct() bool {
	return r.Err == nil && r.Result.Rows == r.Truth.Rows && r.Result.Checksum == r.Truth.Checksum &&
		r.Result.Sum == r.Truth.Sum
}

// Ratio is bytes fetched over the page-level bound.
func (r *QueryResult) Ratio() float64 {
	return float64(r.Result.Report.BytesRequested) / float64(r.Bound.Total())
}

// Run runs every query of p over file with the given base options.
func Run(file []byte, p Params, opts scan.Options) ([]QueryResult, error) {
	l, t, err := openFile(file)
	if err != nil {
		return nil, err
	}
	var out []QueryResult
	for _, q := range Queries(p) {
		qr := QueryResult{Query: q, layout: l}
		if qr.Truth, err = Oracle(t, q); err != nil {
			return nil, fmt.Errorf("%s oracle: %w", q.Name, err)
		}
		qr.Result, qr.Err = Drive(file, q, opts)
		qr.Bound = l.LowerBound(q, qr.Truth)
		var fetched []scan.Range
		for _, round := range qr.Result.Rounds {
			fetched = append(fetched, round...)
		}
		qr.Breakdown = l.Classify(fetched, qr.Bound)
		out = append(out, qr)
	}
	return out, nil
}

// openFile maps file's layout and opens it with arrow-go (the oracle).
func openFile(file []byte) (*Layout, *Table, error) {
	l, err := NewLayout(file)
	if err != nil {
		return nil, nil, err
	}
	t, err := Open(file)
	return l, t, err
}

func mb(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// WriteTable prints the results as a Markdown table.
func WriteTable(w io.Writer, rs []QueryResult) {
	fmt.Fprintln(w, "| query | rows | correct | fetched | requests | round trips | page bound | ratio | chunk bound | engine time |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		rep := r.Result.Report
		ok := "yes"
		if !r.Correct() {
			ok = fmt.Sprintf("NO (rows %d want %d, err %v)", r.Result.Rows, r.Truth.Rows, r.Err)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %d | %d | %s | %.2f× | %s | %v |\n",
			r.Query.Name, r.Result.Rows, ok, mb(rep.BytesRequested), rep.Requests, rep.RoundTrips,
			mb(r.Bound.Total()), r.Ratio(), mb(r.Bound.Chunk), r.Result.Elapsed.Round(100_000))
	}
}

// WriteDetails prints, per query, the bound's parts, the fetched bytes by kind (inside the
// bound / outside it), each round trip, and the engine's report.
func WriteDetails(w io.Writer, rs []QueryResult, log bool) {
	for _, r := range rs {
		l := r.layout
		b, rep := r.Bound, r.Result.Report
		fmt.Fprintf(w, "\n%s: %s\n", r.Query.Name, r.Query.Text)
		fmt.Fprintf(w, "  bound: footer %s + page index %s + dictionaries %s + %d data pages %s = %s\n",
			mb(b.Footer), mb(b.Index), mb(b.Dict), b.Pages, mb(b.Data), mb(b.Total()))
		var parts []string
		for k := kind(0); k < nKinds; k++ {
			if n, x := r.Breakdown.Needed[k], r.Breakdown.Extra[k]; n+x > 0 {
				parts = append(parts, fmt.Sprintf("%s %s in bound + %s extra", kindNames[k], mb(n), mb(x)))
			}
		}
		fmt.Fprintf(w, "  fetched by kind: %s\n", strings.Join(parts, "; "))
		if len(r.Breakdown.ExtraPages) > 0 {
			var cols []string
			for c := range r.Breakdown.ExtraPages {
				cols = append(cols, c)
			}
			sort.Strings(cols)
			var ps []string
			for _, c := range cols {
				ps = append(ps, fmt.Sprintf("%s %d", c, r.Breakdown.ExtraPages[c]))
			}
			fmt.Fprintf(w, "  data pages fetched outside the bound (partial pages counted): %s\n", strings.Join(ps, ", "))
		}
		for i, round := range r.Result.Rounds {
			var n int64
			for _, x := range round {
				n += x.Len
			}
			bd := l.Classify(round, b)
			var labels []string
			for k := range bd.ByLabel {
				labels = append(labels, k)
			}
			sort.Slice(labels, func(i, j int) bool { return bd.ByLabel[labels[i]] > bd.ByLabel[labels[j]] })
			var ps []string
			for _, k := range labels {
				ps = append(ps, fmt.Sprintf("%s %s", k, mb(bd.ByLabel[k])))
			}
			fmt.Fprintf(w, "  round trip %d: %d ranges, %s: %s\n", i+1, len(round), mb(n), strings.Join(ps, ", "))
		}
		fmt.Fprintf(w, "  report: row groups %d → slice %d → stats %d → dict %d → bloom %d; pages %d → page index %d → late mat %d; rows scanned %d matched %d; lazy dicts %d\n",
			rep.RowGroupsTotal, rep.RowGroupsAfterSlice, rep.RowGroupsAfterStats, rep.RowGroupsAfterDict, rep.RowGroupsAfterBloom,
			rep.PagesTotal, rep.PagesAfterPageIndex, rep.PagesAfterLateMat, rep.RowsScanned, rep.RowsMatched, rep.DictionariesLazy)
		if rep.LateMaterialization != "" {
			fmt.Fprintf(w, "  late materialization: %s\n", rep.LateMaterialization)
		}
		if log {
			for _, line := range rep.Log {
				fmt.Fprintf(w, "  log: %s\n", line)
			}
		}
	}
}
