package optimize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/scan"
)

// Query is one scan of a workload.
type Query struct {
	// Where is a SQL WHERE filter (package prune); empty means every row.
	Where string
	// Columns are the columns returned; empty means all.
	Columns []string
}

// Cost is what one query fetched in a real, cold scan: the file is opened afresh (footer
// read included) and every batch is decoded; the bytes, requests and round trips are the
// Source's counters.
type Cost struct {
	Query       Query
	Bytes       int64 // bytes received, footer included
	Requests    int64 // requests (ReadAt calls for local files, HTTP requests for URLs)
	RoundTrips  int64 // Fetch calls that issued a request: the latency a scan pays
	FooterBytes int64 // of Bytes, what Open read
	RowsMatched int64
	Report      scan.Report
}

// Measure runs every query against src (a path or an http(s) URL, opened with opts once per
// query so that each cost is a cold scan) and returns their costs in order.
func Measure(ctx context.Context, src string, opts pqscan.Options, queries []Query) ([]Cost, error) {
	out := make([]Cost, 0, len(queries))
	for _, q := range queries {
		c, err := measure(ctx, src, opts, q)
		if err != nil {
			return nil, fmt.Errorf("optimize: %s: where %q: %w", src, q.Where, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func measure(ctx context.Context, src string, opts pqscan.Options, q Query) (Cost, error) {
	f, err := pqscan.Open(ctx, src, opts)
	if err != nil {
		return Cost{}, err
	}
	defer f.Close()
	c := Cost{Query: q, FooterBytes: f.Source().Stats().Bytes}
	r, err := f.Scan(ctx, pqscan.ScanOptions{Where: q.Where, Columns: q.Columns})
	if err != nil {
		return Cost{}, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Cost{}, err
		}
		c.RowsMatched += rec.NumRows()
		rec.Release()
	}
	st := f.Source().Stats()
	c.Bytes, c.Requests, c.RoundTrips = st.Bytes, st.Requests, st.RoundTrips
	c.Report = r.Report()
	return c, nil
}

// WriteCosts prints costs as a table. With after (the same queries on a second file, same
// length) it prints before → after columns.
func WriteCosts(w io.Writer, before, after []Cost) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if after == nil {
		fmt.Fprintln(tw, "query\tcolumns\trows\trow groups\tpages\tbytes\trequests\tround trips")
		for _, c := range before {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\n", where(c.Query), columns(c.Query), c.RowsMatched,
				rowGroups(c.Report), pages(c.Report), human(c.Bytes), c.Requests, c.RoundTrips)
		}
		return tw.Flush()
	}
	if len(after) != len(before) {
		return fmt.Errorf("%w: %d queries before, %d after", ErrOption, len(before), len(after))
	}
	fmt.Fprintln(tw, "query\trows\trow groups\tpages\tbytes\trequests\tround trips")
	for i, b := range before {
		a := after[i]
		rows := fmt.Sprint(b.RowsMatched)
		if a.RowsMatched != b.RowsMatched {
			rows = fmt.Sprintf("%d → %d (differ!)", b.RowsMatched, a.RowsMatched)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%s → %s\t%s → %s (%s)\t%d → %d\t%d → %d\n", where(b.Query), rows,
			rowGroups(b.Report), rowGroups(a.Report), pages(b.Report), pages(a.Report),
			human(b.Bytes), human(a.Bytes), ratio(b.Bytes, a.Bytes), b.Requests, a.Requests, b.RoundTrips, a.RoundTrips)
	}
	return tw.Flush()
}

func where(q Query) string {
	if q.Where == "" {
		return "(all rows)"
	}
	return q.Where
}

func columns(q Query) string {
	if len(q.Columns) == 0 {
		return "*"
	}
	return strings.Join(q.Columns, ",")
}

func rowGroups(r scan.Report) string {
	return fmt.Sprintf("%d/%d", r.RowGroupsAfterBloom, r.RowGroupsTotal)
}

func pages(r scan.Report) string {
	return fmt.Sprintf("%d/%d", r.PagesAfterLateMat, r.PagesTotal)
}

func ratio(before, after int64) string {
	if after == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f×", float64(before)/float64(after))
}

// human prints a byte count with a binary unit.
func human(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
