package bench

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// TopKResult is a top-k (scan.Options.OrderBy with a limit) on one file: the positions the
// engine returned, the brute force's, the report, and the bytes of the whole key column.
type TopKResult struct {
	Name, OrderBy string
	K             int64
	Got, Want     []int64 // row positions, in result order
	Report        scan.Report
	ColumnBytes   int64 // the value column's chunks (dictionaries and pages)
	Err           error
}

// RunTopK runs ORDER BY value DESC LIMIT 10 (columns tenant_id, value) over file and sorts
// the whole value column by brute force (arrow-go; ties by position) for the expected rows.
func RunTopK(file []byte, opts scan.Options) (TopKResult, error) {
	l, t, err := openFile(file)
	if err != nil {
		return TopKResult{}, err
	}
	r := TopKResult{Name: "T1", OrderBy: "value DESC", K: 10}
	type row struct {
		v   float64
		pos int64
	}
	var all []row
	for rg := range t.RowGroups() {
		ch := &l.Chunks[rg][events.ColValue]
		r.ColumnBytes += ch.Dict.Len
		for _, pg := range ch.Pages {
			r.ColumnBytes += pg.Len
		}
		a, err := t.column(rg, events.ColValue)
		if err != nil {
			return r, err
		}
		for _, v := range a.(*array.Float64).Float64Values() {
			all = append(all, row{v, int64(len(all))})
		}
		a.Release()
	}
	slices.SortFunc(all, func(a, b row) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.pos, b.pos)) })
	for _, x := range all[:min(int(r.K), len(all))] {
		r.Want = append(r.Want, x.pos)
	}
	opts.FileSize, opts.OrderBy, opts.Limit = int64(len(file)), r.OrderBy, r.K
	opts.RowIndex, opts.Columns = "pos", []string{"pos", "tenant_id", "value"}
	r.Got, r.Report, r.Err = driveRows(file, opts)
	return r, nil
}

// driveRows runs a scan over a file held in memory and returns its first column (int64).
func driveRows(file []byte, opts scan.Options) ([]int64, scan.Report, error) {
	s, err := scan.New(opts)
	if err != nil {
		return nil, scan.Report{}, err
	}
	d := drive.Driver{Sess: s, Src: httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))), Sized: true}
	var out []int64
	for {
		st, err := d.Step(context.Background())
		if err != nil {
			return nil, s.Report(), err
		}
		switch st.Kind {
		case scan.Batch:
			rd, err := ipc.NewReader(bytes.NewReader(st.IPC))
			if err != nil {
				return nil, s.Report(), err
			}
			for rd.Next() {
				out = append(out, rd.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
			}
			rd.Release()
		case scan.Done:
			return out, s.Report(), nil
		}
	}
}

// Correct reports whether the engine returned the brute force's rows in its order.
func (r TopKResult) Correct() bool { return r.Err == nil && slices.Equal(r.Got, r.Want) }

// WriteTopK prints the top-k line as a Markdown table.
func WriteTopK(w io.Writer, r TopKResult) {
	fmt.Fprintln(w, "| top-k | order by | k | correct | fetched | requests | round trips | units skipped | value column | fetched / column |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
	ok := "yes"
	if !r.Correct() {
		ok = fmt.Sprintf("NO (got %v, want %v, err %v)", r.Got, r.Want, r.Err)
	}
	rep := r.Report
	fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %d | %d | %d | %s | %.3f |\n", r.Name, r.OrderBy, r.K, ok,
		mb(rep.BytesRequested), rep.Requests, rep.RoundTrips, rep.TopKSkipped, mb(r.ColumnBytes),
		float64(rep.BytesRequested)/float64(r.ColumnBytes))
}
