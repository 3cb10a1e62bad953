package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
)

// scanResult is everything a whole-file scan returned.
type scanResult struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	rows   int64
	starts []int64 // each batch's first row, for rowAt (built on first use)
}

// errTimeout marks a scan that did not finish in time (a hang is a bug like a panic).
var errTimeout = errors.New("scan did not finish in time")

// scanBytes opens data and scans it whole with the native engine, bounded by timeout. A panic
// anywhere in pqscan is returned as an error carrying the stack, so that one bad file does not
// hide the results of the others.
func scanBytes(data []byte, opts pqscan.Options, so pqscan.ScanOptions, timeout time.Duration) (res *scanResult, err error) {
	type out struct {
		res *scanResult
		err error
	}
	done := make(chan out, 1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- out{err: fmt.Errorf("PANIC: %v\n%s", r, debug.Stack())}
			}
		}()
		res, err := scanAll(ctx, data, opts, so)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(timeout + 2*time.Second):
		// The scan ignores its context: report it with the scanning goroutine's stack (the
		// one inside internal/scan or internal/decode) and abandon it.
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var where string
		for _, g := range bytes.Split(buf, []byte("\n\n")) {
			if bytes.Contains(g, []byte("conformance.scanAll")) {
				where = string(g)
				break
			}
		}
		return nil, fmt.Errorf("%w after %v; engine goroutine:\n%s", errTimeout, timeout, where)
	}
}

func scanAll(ctx context.Context, data []byte, opts pqscan.Options, so pqscan.ScanOptions) (*scanResult, error) {
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := f.Scan(ctx, so)
	if err != nil {
		return nil, err
	}
	return collect(r)
}

// collect reads every batch of r (and closes it), checking each batch's schema.
func collect(r *pqscan.Reader) (*scanResult, error) {
	defer r.Close()
	res := &scanResult{schema: r.Schema()}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		if !rec.Schema().Equal(res.schema) {
			return nil, fmt.Errorf("batch schema %v differs from the scan schema %v", rec.Schema(), res.schema)
		}
		res.recs = append(res.recs, rec)
		res.rows += rec.NumRows()
	}
}

// rowAt locates global row i in the batches.
func (s *scanResult) rowAt(i int64) (arrow.RecordBatch, int) {
	if len(s.starts) != len(s.recs) {
		s.starts = s.starts[:0]
		var n int64
		for _, r := range s.recs {
			s.starts = append(s.starts, n)
			n += r.NumRows()
		}
	}
	k := sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > i }) - 1
	if k < 0 || i-s.starts[k] >= s.recs[k].NumRows() {
		return nil, 0
	}
	return s.recs[k], int(i - s.starts[k])
}

// firstLine cuts a multi-line error (a panic with its stack) to its first line for summaries.
func firstLine(err error) string {
	s := err.Error()
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
