package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// CountResult is one count (scan.Options.Count) on one file: the engine's answer and report,
// the brute-force count, and the bound of what a count must read.
type CountResult struct {
	Name, Where string
	Got, Want   int64
	Report      scan.Report
	// Bound is the footer plus, in each row group where the statistics cannot decide, the
	// predicate column's offset and column index and the data pages that hold both matching
	// and other rows (the edges of the value's range), with their dictionary; BoundFromMeta is
	// how many matching rows lie outside those pages (countable from metadata).
	Bound, BoundFromMeta int64
	Err                  error
}

// RunCounts runs SELECT count(*) without a predicate and with tenant_id = p.Tenant over file.
func RunCounts(file []byte, p Params, opts scan.Options) ([]CountResult, error) {
	l, t, err := openFile(file)
	if err != nil {
		return nil, err
	}
	all := CountResult{Name: "C1", Want: l.Meta.NumRows, Bound: l.Footer.Len, BoundFromMeta: l.Meta.NumRows}
	one := CountResult{Name: "C2", Where: fmt.Sprintf("tenant_id = %d", p.Tenant), Bound: l.Footer.Len}
	for rg := range t.RowGroups() {
		tenant, _, _, err := t.predicateColumns(rg)
		if err != nil {
			return nil, err
		}
		ch := &l.Chunks[rg][events.ColTenantID]
		edges, dict := false, false
		for _, pg := range ch.Pages {
			var hit int64
			for _, x := range tenant[pg.FirstRow : pg.FirstRow+pg.Rows] {
				if x == p.Tenant {
					hit++
				}
			}
			one.Want += hit
			if hit > 0 && hit < pg.Rows {
				one.Bound += pg.Len
				edges, dict = true, dict || pg.UsesDict
			} else {
				one.BoundFromMeta += hit
			}
		}
		if edges {
			one.Bound += ch.OffsetIndex.Len + ch.ColumnIndex.Len
			if dict {
				one.Bound += ch.Dict.Len
			}
		}
	}
	out := []CountResult{all, one}
	for i := range out {
		out[i].Got, out[i].Report, out[i].Err = driveCount(file, out[i].Where, opts)
	}
	return out, nil
}

// driveCount runs a count over a file held in memory through the Go driver.
func driveCount(file []byte, where string, opts scan.Options) (int64, scan.Report, error) {
	opts.FileSize, opts.Where, opts.Count = int64(len(file)), where, true
	s, err := scan.New(opts)
	if err != nil {
		return 0, scan.Report{}, err
	}
	d := drive.Driver{Sess: s, Src: httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))), Sized: true}
	n := int64(-1)
	for {
		st, err := d.Step(context.Background())
		if err != nil {
			return 0, s.Report(), err
		}
		switch st.Kind {
		case scan.Batch:
			rd, err := ipc.NewReader(bytes.NewReader(st.IPC))
			if err != nil {
				return 0, s.Report(), err
			}
			for rd.Next() {
				if c, ok := rd.RecordBatch().Column(0).(*array.Int64); ok && c.Len() == 1 {
					n = c.Value(0)
				}
			}
			rd.Release()
		case scan.Done:
			if n < 0 {
				return 0, s.Report(), fmt.Errorf("bench: the count scan returned no count")
			}
			return n, s.Report(), nil
		}
	}
}

// WriteCounts prints the counts as a Markdown table.
func WriteCounts(w io.Writer, rs []CountResult) {
	fmt.Fprintln(w, "| count | where | count | correct | rows from metadata (bound) | fetched | requests | round trips | bound | ratio |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		ok := "yes"
		if r.Err != nil || r.Got != r.Want {
			ok = fmt.Sprintf("NO (want %d, err %v)", r.Want, r.Err)
		}
		rep := r.Report
		where := r.Where
		if where == "" {
			where = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d (%d) | %s | %d | %d | %s | %.2f× |\n", r.Name, where, r.Got, ok,
			rep.RowsCountedFromMetadata, r.BoundFromMeta, mb(rep.BytesRequested), rep.Requests, rep.RoundTrips,
			mb(r.Bound), float64(rep.BytesRequested)/float64(r.Bound))
	}
}
