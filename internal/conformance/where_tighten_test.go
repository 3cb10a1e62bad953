package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_whereTighten: a runtime filter Q given to a running scan of WHERE P (Reader.Tighten
// after a random number of batches). What the scan returns must be, in file order, the rows
// P keeps, less some of those Q rejects: every row P and Q keep is returned. In one session
// the filter applies from a point on (no row Q rejects is returned after one it dropped);
// units decoded ahead of the consumer keep their rows, so on threads only the first holds.
// Rows are told apart by their row index; the oracle is the evaluator over the file read
// whole. Natively, on 3 threads (units), and in the wasm module.
func Test_whereTighten(t *testing.T) {
	ctx := context.Background()
	dir := testcorpus.Dir(t)
	// The sources: every third corpus file and the generated ones, each opened by open.
	type src struct {
		name string
		open func(o pqscan.Options) (*pqscan.File, error)
	}
	var srcs []src
	for i, p := range testcorpus.Files(t, ".parquet") {
		if i%3 == 0 && whereCorpusFile(p) {
			path := filepath.Join(dir, p)
			srcs = append(srcs, src{p, func(o pqscan.Options) (*pqscan.File, error) { return pqscan.Open(ctx, path, o) }})
		}
	}
	for _, g := range generatedFiles(t) {
		data := g.data
		srcs = append(srcs, src{g.name, func(o pqscan.Options) (*pqscan.File, error) {
			return pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), o)
		}})
	}
	checked := 0
	run := func(suffix string, o pqscan.Options, every, draws int) {
		monotone := o.Threads <= 1
		for i, s := range srcs {
			if i%every != 0 {
				continue
			}
			f, err := s.open(o)
			if err != nil {
				continue
			}
			checked += checkTighten(t, s.name+suffix, f, draws, monotone)
			f.Close()
		}
	}
	run("", pqscan.Options{}, 1, whereDraws)
	// Units on three threads, as small as the pages allow: the filter reaches the units not yet read.
	withUnitMinBytes(t, 1)
	run(" (3 threads)", pqscan.Options{Threads: 3}, 2, whereDraws/2)
	run(" (wasm)", pqscan.Options{Engine: wasmHost(t)}, 4, 2)
	t.Logf("%d runtime filters checked, %d of them dropped rows", checked, tightenDropped)
	if checked < 500 || tightenDropped < 50 {
		t.Fatalf("only %d runtime filters, %d of them dropping rows", checked, tightenDropped)
	}
}

// tightenDropped counts the checked scans whose runtime filter dropped a row (the test is not
// vacuous).
var tightenDropped int

// checkTighten draws n pairs (P, Q) over f and checks each tightened scan; it returns how many.
func checkTighten(t *testing.T, name string, f *pqscan.File, n int, monotone bool) int {
	t.Helper()
	ctx := context.Background()
	if f.Metadata().NumRows == 0 || f.Metadata().NumRows > 200_000 {
		return 0
	}
	r, err := f.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		return 0
	}
	all, err := collect(r)
	if err != nil || all.rows == 0 {
		return 0
	}
	var cols []int
	for i, fl := range all.schema.Fields() {
		if tableColumn(fl.Type) && !hasNaN(all, colRef{path: []int{i}, typ: fl.Type}) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return 0
	}
	hs := fnv.New64a()
	hs.Write([]byte(name))
	rng := rand.New(rand.NewPCG(hs.Sum64(), whereSalt+101))
	done := 0
	for range n {
		p, q := drawExpr(rng, all, cols, 0), drawExpr(rng, all, cols, 0)
		if p == nil || q == nil {
			continue
		}
		o := pqscan.ScanOptions{Where: p.sql(), RowIndex: "__ri", Columns: []string{"__ri"}, BatchRows: 1 + rng.IntN(64)}
		if rng.IntN(3) == 0 {
			o.Limit = int64(1 + rng.IntN(50))
		}
		after := rng.IntN(4) // batches read before the runtime filter
		got, err := tightenedScan(f, o, q.sql(), after)
		what := fmt.Sprintf("%s WHERE %s, %d batches of %d, then TIGHTEN %s (limit %d)", name, p.sql(), after, o.BatchRows, q.sql(), o.Limit)
		if err != nil {
			t.Errorf("%s: %v", what, firstLine(err))
			continue
		}
		if msg := tightenOK(all, p, q, got, o.Limit, monotone); msg != "" {
			t.Errorf("%s: %s", what, msg)
		}
		if o.Limit == 0 && len(got) < len(matching(all, p)) {
			tightenDropped++
		}
		done++
	}
	return done
}

// tightenedScan returns the row indexes scan o returns with runtime filter q given after the
// first `after` batches.
func tightenedScan(f *pqscan.File, o pqscan.ScanOptions, q string, after int) ([]int64, error) {
	r, err := f.Scan(context.Background(), o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var got []int64
	for k := 0; ; k++ {
		if k == after {
			if err := r.Tighten(q); err != nil {
				return nil, err
			}
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return nil, err
		}
		got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
		rec.Release()
	}
}

// tightenOK checks a tightened scan's rows against P and Q (Test_whereTighten), "" when they
// hold; monotone asks that no row Q rejects follow one it dropped.
func tightenOK(all *scanResult, p, q wexpr, got []int64, limit int64, monotone bool) string {
	keep := matching(all, p)
	// got is a subsequence of keep; the rows skipped are rows Q rejects, and once a row is
	// skipped every later row Q rejects is skipped too.
	j, dropped := 0, false
	for _, ri := range got {
		for j < len(keep) && keep[j] != ri {
			if q.eval(all, keep[j]) == tTrue {
				return fmt.Sprintf("row %d, which P and Q keep, is missing (got row %d next)", keep[j], ri)
			}
			dropped = true
			j++
		}
		if j == len(keep) {
			return fmt.Sprintf("row %d is not one P keeps, or out of order", ri)
		}
		if monotone && dropped && q.eval(all, ri) != tTrue {
			return fmt.Sprintf("row %d, which Q rejects, is returned after a row Q rejects was dropped", ri)
		}
		j++
	}
	if limit > 0 && int64(len(got)) == limit {
		return ""
	}
	for ; j < len(keep); j++ {
		if q.eval(all, keep[j]) == tTrue {
			return fmt.Sprintf("row %d, which P and Q keep, is missing at the end (%d rows returned)", keep[j], len(got))
		}
	}
	return ""
}
