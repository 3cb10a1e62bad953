package scan

import "github.com/pqscan/pqscan/internal/decode/arrowipc"

// Placement: the batch of a scan that projects one fixed-width column is decoded straight into
// the body of the IPC stream that emits it, so its values are written once inside the engine
// instead of twice (decoded into the leaf batch, then copied into the stream by
// arrowipc.WriteStream's appendMessage). In V8 that copy of every batch was 4.7% of a scan of
// the events file's `value` column (BENCHMARKS.md "Where V8's time goes"); the bytes
// still leave the module once, by the host's copy of Step.IPC.
//
// How: a stream of one fixed-width column without nulls ends with its values and the 8-byte
// end-of-stream marker, and every batch of the scan has the same schema and message sizes, so
// the next batch's values go where this batch's went (placeAt). The leaf batch is pointed at
// s.ipc from there (its spare capacity holding a whole batch), the column reader appends into
// it, and WriteStream finds the values already in place. Nothing depends on the guess being
// right: a batch that lands anywhere else (a null appeared, the message grew) is copied by
// WriteStream into fresh memory, never overwritten before it is read (arrowipc.appendSafe).
//
// Safe because Step.IPC is valid only until the next call (step.go): the next batch is
// decoded into s.ipc after the host has read the previous one, as WriteStream already
// overwrote it. Only plain projections qualify: a filter, a sort, Count, MinMax, a row index
// or a Shaper keep or add columns, so they build their batches apart from the stream.

// placeBatches switches placement off for tests that compare it with copying.
var placeBatches = true

// placeable reports whether this scan emits exactly one top-level fixed-width leaf column as
// it is decoded, and returns that leaf's batch width.
func (s *Scanner) placeable() (int, bool) {
	if !placeBatches || s.pred != nil || s.tk != nil || s.mm != nil || s.opts.Count || s.shape != nil || s.opts.RowIndex != "" ||
		len(s.cols) != 1 || len(s.leaves) != 1 || s.cols[0] != s.leaves[0] {
		return 0, false
	}
	l := s.leaves[0]
	w := l.Conv.OutWidth
	if w <= 0 || s.dictLeaf[l.Node.Leaf] || l.Node.RepLevel != 0 {
		return 0, false
	}
	return w, true
}

// place points the leaf batch (just reset) at s.ipc[s.placeAt:] when the previous batch left
// room for a whole batch there.
func (s *Scanner) place() {
	w, ok := s.placeable()
	if !ok || s.placeAt <= 0 || s.placeAt+s.opts.BatchRows*w+16 > cap(s.ipc) {
		return
	}
	b := s.batch(s.leaves[0])
	b.Vals.Fixed = s.ipc[s.placeAt:s.placeAt:cap(s.ipc)]
}

// notePlace records where the values of the batch just written sit in s.ipc (the body's last
// buffer, before the end-of-stream marker) and counts the batch as placed when they were
// already there (written in place: WriteStream did not copy them).
func (s *Scanner) notePlace(cols []*arrowipc.Array) {
	s.placeAt = 0
	if _, ok := s.placeable(); !ok || len(cols) != 1 || cols[0].NullCount != 0 || len(cols[0].Data) == 0 {
		return
	}
	s.placeAt = len(s.ipc) - 8 - (len(cols[0].Data)+7)&^7
	if &s.ipc[s.placeAt] == &cols[0].Data[0] {
		s.placed++
	}
}
