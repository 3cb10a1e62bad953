package scan

// Answers from metadata (Options.Count): SELECT count(*) with a WHERE, counting the row groups
// and pages whose statistics prove that every row matches from their row counts, and reading
// the predicate columns only where the statistics leave the answer open.

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/prune"
)

// countField is the one column of a count's result.
var countField = arrowipc.Field{Name: "count", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}}

// countWhole takes a row group that the statistics level proved to match in every row (or
// that any row matches, without a predicate) from num_rows, so it never reaches the plan.
func (s *Scanner) countWhole(rg int) {
	n := s.meta.RowGroups[rg].NumRows - s.deletedIn(rg)
	s.addCounted(n)
	if r := s.rgReport(rg); r != nil {
		r.SkippedBy, r.RowsMatched = "metadata", n
	}
	s.logf("row group %d: %d rows counted from its statistics", rg, n)
}

// countFromMetadata counts the rows of g that the column indexes proved all match (all) from
// the offset index, and leaves only the others as candidates to read. It reports whether
// nothing is left to read.
func (s *Scanner) countFromMetadata(g *rgState, all prune.RowSelection) bool {
	n := all.Count()
	if n == 0 {
		return false
	}
	s.addCounted(n)
	g.cand = g.cand.Intersect(all.Complement(g.rows))
	r := s.rgReport(g.idx)
	if r != nil {
		r.RowsMatched += n
	}
	s.logf("row group %d: %d rows counted from the page index", g.idx, n)
	if len(g.cand) > 0 {
		return false
	}
	if r != nil {
		r.SkippedBy = "metadata"
	}
	return true
}

// addCounted adds n rows proven to match without reading them.
func (s *Scanner) addCounted(n int64) {
	s.report.RowsCountedFromMetadata += n
	s.report.RowsMatched += n
	s.counted += n
}

// Counted returns the matching rows a count scan found, before its Offset and Limit: a table
// session sums its files' counts and applies its own offset and limit to the sum.
func (s *Scanner) Counted() int64 { return s.counted }

// countWindow adds the matching rows the exact filter found in the window.
func (s *Scanner) countWindow() {
	for _, g := range s.window {
		s.counted += g.match.Count()
		s.release(g)
	}
	s.window = nil
}

// emitCount writes the count's one-row batch: the matching rows, then Offset and Limit.
func (s *Scanner) emitCount() Step {
	n := max(0, s.counted-s.opts.Offset)
	if s.opts.Limit > 0 {
		n = min(n, s.opts.Limit)
	}
	a := &arrowipc.Array{Len: 1, Data: binary.LittleEndian.AppendUint64(nil, uint64(n))}
	ipc, err := arrowipc.WriteStream(s.ipc[:0], s.emitSchema(), 1, []*arrowipc.Array{a})
	if err != nil {
		return s.fail(err)
	}
	s.ipc, s.emitted = ipc, true
	s.report.RowsReturned = 1
	return Step{Kind: Batch, IPC: ipc}
}
