package optimize

import (
	"bufio"
	"container/heap"
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sorter sorts a stream of batches by key columns: in memory while the retained batches stay
// under the cap, else as an external merge sort. Each time the retained bytes exceed the cap
// they are sorted into a run and spilled to a temporary Arrow IPC file (in about spillParts
// record batches); finish merges the runs k ways, holding one record batch per run.
//
// Memory: the cap while reading, plus one sorted copy of the run being spilled; during the
// merge, runs × cap/spillParts (more than the cap only with over spillParts runs: no
// multi-pass merge). Not safe for concurrent use.
type sorter struct {
	keyIdx  []int
	cap     int64
	dir     string
	schema  *arrow.Schema
	mem     memory.Allocator
	pending []arrow.RecordBatch
	bytes   int64
	runs    []string
	// stats
	spilledRuns  int
	spilledBytes int64
}

const (
	spillParts = 16
	outRows    = 1 << 16
)

func newSorter(schema *arrow.Schema, keyIdx []int, cap int64, dir string) *sorter {
	return &sorter{keyIdx: keyIdx, cap: cap, dir: dir, schema: schema, mem: memory.DefaultAllocator}
}

// add retains rec; it spills a run when the retained bytes exceed the cap.
func (s *sorter) add(ctx context.Context, rec arrow.RecordBatch) error {
	rec.Retain()
	s.pending = append(s.pending, rec)
	s.bytes += recordBytes(rec)
	if s.bytes > s.cap {
		return s.spill(ctx)
	}
	return nil
}

// sortPending concatenates the retained batches and returns them sorted (nil when empty).
func (s *sorter) sortPending(ctx context.Context) (arrow.RecordBatch, error) {
	if len(s.pending) == 0 {
		return nil, nil
	}
	defer func() {
		for _, r := range s.pending {
			r.Release()
		}
		s.pending, s.bytes = s.pending[:0], 0
	}()
	all, err := concat(s.schema, s.pending, s.mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	k, err := newKeys(all, s.keyIdx)
	if err != nil {
		return nil, err
	}
	perm := make([]int64, all.NumRows())
	for i := range perm {
		perm[i] = int64(i)
	}
	slices.SortStableFunc(perm, func(a, b int64) int { return k.cmp(int(a), k, int(b)) })
	return take(ctx, all, perm, s.mem)
}

// spill sorts the retained batches into a run file.
func (s *sorter) spill(ctx context.Context) error {
	rec, err := s.sortPending(ctx)
	if err != nil || rec == nil {
		return err
	}
	defer rec.Release()
	f, err := os.CreateTemp(s.dir, "pqscan-optimize-run-*.arrow")
	if err != nil {
		return fmt.Errorf("optimize: spill: %w", err)
	}
	s.runs = append(s.runs, f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := ipc.NewFileWriter(bw, ipc.WithSchema(s.schema), ipc.WithAllocator(s.mem))
	if err == nil {
		step := max(1024, (rec.NumRows()+spillParts-1)/spillParts)
		for lo := int64(0); lo < rec.NumRows() && err == nil; lo += step {
			part := rec.NewSlice(lo, min(lo+step, rec.NumRows()))
			err = w.Write(part)
			part.Release()
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if st, serr := f.Stat(); serr == nil {
		s.spilledBytes += st.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("optimize: spill: %w", err)
	}
	s.spilledRuns++
	return nil
}

// finish calls emit with every row in key order, in batches of at most outRows rows. emit
// must not keep a batch without retaining it.
func (s *sorter) finish(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	if len(s.runs) == 0 {
		rec, err := s.sortPending(ctx)
		if err != nil || rec == nil {
			return err
		}
		defer rec.Release()
		for lo := int64(0); lo < rec.NumRows(); lo += outRows {
			part := rec.NewSlice(lo, min(lo+outRows, rec.NumRows()))
			err := emit(part)
			part.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.spill(ctx); err != nil {
		return err
	}
	return s.merge(ctx, emit)
}

// close releases retained batches and removes the run files.
func (s *sorter) close() {
	for _, r := range s.pending {
		r.Release()
	}
	s.pending = nil
	for _, p := range s.runs {
		os.Remove(p)
	}
	s.runs = nil
}

// run is one spilled run being merged.
type run struct {
	f    *os.File
	rdr  *ipc.FileReader
	next int // next record batch to read
	rec  arrow.RecordBatch
	keys keys
	pos  int // next row of rec
	// lo is the first row of rec taken into the output chunk being built.
	lo int
}

// load reads the run's next non-empty batch; ok is false at the end of the run.
func (r *run) load(keyIdx []int) (ok bool, err error) {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	for r.next < r.rdr.NumRecords() {
		rec, err := r.rdr.RecordBatchAt(r.next)
		r.next++
		if err != nil {
			return false, err
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		r.rec, r.pos, r.lo = rec, 0, 0
		r.keys, err = newKeys(rec, keyIdx)
		return err == nil, err
	}
	return false, nil
}

type runHeap []*run

func (h runHeap) Len() int      { return len(h) }
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge merges the run files k ways. An output chunk holds rows of the runs' current batches
// only: it is cut whenever a run's batch is used up, so that each run contributes one
// contiguous slice, and the chunk is built with one concatenation and one take.
func (s *sorter) merge(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	runs := make([]*run, 0, len(s.runs))
	defer func() {
		for _, r := range runs {
			if r.rec != nil {
				r.rec.Release()
			}
			r.rdr.Close()
			r.f.Close()
		}
	}()
	h := runHeap{}
	for _, p := range s.runs {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("optimize: merge: %w", err)
		}
		rdr, err := ipc.NewFileReader(f, ipc.WithAllocator(s.mem))
		if err != nil {
			f.Close()
			return fmt.Errorf("optimize: merge %s: %w", p, err)
		}
		r := &run{f: f, rdr: rdr}
		runs = append(runs, r)
		ok, err := r.load(s.keyIdx)
		if err != nil {
			return fmt.Errorf("optimize: merge %s: %w", p, err)
		}
		if ok {
			h = append(h, r)
		}
	}
	order := make(map[*run]int, len(runs))
	for i, r := range runs {
		order[r] = i
	}
	hp := &mergeHeap{runHeap: h, order: order}
	heap.Init(hp)

	type pick struct{ run, row int32 }
	var picks []pick
	flush := func() error {
		if len(picks) == 0 {
			return nil
		}
		// One slice per contributing run, in run order; offsets into their concatenation.
		var parts []arrow.RecordBatch
		base := make([]int64, len(runs))
		var n int64
		used := make([]bool, len(runs))
		for _, p := range picks {
			used[p.run] = true
		}
		for i, r := range runs {
			if !used[i] {
				continue
			}
			base[i] = n - int64(r.lo)
			parts = append(parts, r.rec.NewSlice(int64(r.lo), int64(r.pos)))
			n += int64(r.pos - r.lo)
			r.lo = r.pos
		}
		all, err := concat(s.schema, parts, s.mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return err
		}
		idx := make([]int64, len(picks))
		for i, p := range picks {
			idx[i] = base[p.run] + int64(p.row)
		}
		out, err := take(ctx, all, idx, s.mem)
		all.Release()
		if err != nil {
			return err
		}
		picks = picks[:0]
		err = emit(out)
		out.Release()
		return err
	}
	for hp.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := hp.runHeap[0]
		picks = append(picks, pick{int32(order[r]), int32(r.pos)})
		r.pos++
		if r.pos < int(r.rec.NumRows()) && len(picks) < outRows {
			heap.Fix(hp, 0)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if r.pos < int(r.rec.NumRows()) {
			heap.Fix(hp, 0)
			continue
		}
		ok, err := r.load(s.keyIdx)
		if err != nil {
			return fmt.Errorf("optimize: merge: %w", err)
		}
		if ok {
			heap.Fix(hp, 0)
		} else {
			heap.Pop(hp)
		}
	}
	return flush()
}

// mergeHeap orders runs by their head row, then by run index (input order) for ties.
type mergeHeap struct {
	runHeap
	order map[*run]int
}

func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.runHeap[i], h.runHeap[j]
	if c := a.keys.cmp(a.pos, b.keys, b.pos); c != 0 {
		return c < 0
	}
	return h.order[a] < h.order[b]
}

// concat concatenates batches of one schema into one batch.
func concat(schema *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		var err error
		if cols[c], err = array.Concatenate(parts, mem); err != nil {
			return nil, fmt.Errorf("%w: concatenate %s: %v", ErrType, schema.Field(c).Type, err)
		}
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// take returns the rows of rec at idx.
func take(ctx context.Context, rec arrow.RecordBatch, idx []int64, mem memory.Allocator) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewInt64Array()
	ib.Release()
	defer ia.Release()
	ctx = compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		var err error
		if cols[c], err = compute.TakeArray(ctx, rec.Column(c), ia); err != nil {
			return nil, fmt.Errorf("%w: take %s: %v", ErrType, rec.Schema().Field(c).Type, err)
		}
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// recordBytes is the size of the buffers behind rec (shared buffers counted once per column).
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += dataBytes(dict)
	}
	return n
}
