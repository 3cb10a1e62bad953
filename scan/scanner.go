package scan

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/pqscan/pqscan/decode"
	"github.com/pqscan/pqscan/decode/arrowipc"
	"github.com/pqscan/pqscan/decode/format"
	"github.com/pqscan/pqscan/httprange"
	"github.com/pqscan/pqscan/prune"
)

// state is the engine's position in the scan (an explicit state machine, as in arrow-rs'
// push decoder: each state either asks for bytes or makes progress).
type state uint8

const (
	stTail     state = iota // need the file's tail (footer length + magic)
	stFooter                // need the whole footer
	stRowGroup              // need the current row group's column chunks
	stRows                  // emitting batches of the current row group
	stDone
	stFailed
)

// Scanner is the sans-IO scan engine for one Parquet file. It is not safe for concurrent use.
//
// Protocol: call Next; on NeedRanges push the bytes of every range (Push accepts any order,
// granularity and extra bytes) and call Next again; on Batch consume Step.IPC before the next
// call; stop at Done or Error.
type Scanner struct {
	opts  Options
	size  int64
	cache httprange.Cache
	st    state
	err   error

	metaStart  int64 // offset of the footer's FileMetaData
	meta       *format.FileMetaData
	schema     *decode.Schema
	cols       []*decode.Column // projected top-level columns
	leaves     []*decode.Column // their leaves
	readLeaves []*decode.Column // leaves read: projected plus predicate columns
	pred       *predicate
	sel        []bool
	out        arrowipc.Schema

	rgs     []int // row groups still to read
	rg      int   // current row group
	readers []*decode.ColumnReader
	batches map[int]*decode.LeafBatch
	rgLeft  int64 // rows of the current row group not yet returned or skipped

	offsetLeft int64 // rows still to skip for Options.Offset
	limitLeft  int64 // rows still to return; -1 = no limit
	emitted    bool
	ipc        []byte
	arrays     []*arrowipc.Array
	report     Report
}

// New starts a scan. It does no I/O; the first Next asks for the file's tail.
func New(opts Options) (*Scanner, error) {
	opts.normalize()
	if opts.FileSize < 0 || opts.Limit < 0 || opts.Offset < 0 {
		return nil, fmt.Errorf("%w: negative file size, limit or offset", ErrOptions)
	}
	s := &Scanner{opts: opts, size: opts.FileSize, offsetLeft: opts.Offset, limitLeft: -1}
	if opts.Limit > 0 {
		s.limitLeft = opts.Limit
	}
	s.report.FileSize = opts.FileSize
	return s, nil
}

// SetFileSize reports the file size learned by the host when Options.FileSize was 0.
func (s *Scanner) SetFileSize(n int64) error {
	if n <= 0 {
		return fmt.Errorf("%w: file size %d", ErrOptions, n)
	}
	if s.size != 0 && s.size != n {
		return fmt.Errorf("%w: file size changed from %d to %d", ErrFileChanged, s.size, n)
	}
	s.size = n
	s.report.FileSize = n
	return nil
}

// Push hands the engine bytes of the file starting at off. The engine copies what it keeps,
// so the caller may reuse b.
func (s *Scanner) Push(off int64, b []byte) error {
	if off < 0 || (s.size > 0 && off+int64(len(b)) > s.size) {
		return fmt.Errorf("%w: pushed bytes [%d, %d) outside the file of %d bytes", ErrOptions, off, off+int64(len(b)), s.size)
	}
	s.report.BytesPushed += int64(len(b))
	s.cache.Push(off, b)
	return nil
}

// Report returns the scan report so far.
func (s *Scanner) Report() Report { return s.report }

// Schema returns an Arrow IPC stream holding only the output schema; it is available once
// the footer has been decoded (after the first NeedRanges is satisfied).
func (s *Scanner) Schema() ([]byte, error) {
	if s.meta == nil {
		return nil, ErrNoFooter
	}
	return arrowipc.WriteSchema(nil, &s.out)
}

// Metadata returns the decoded footer, or nil before it is read.
func (s *Scanner) Metadata() *format.FileMetaData { return s.meta }

// fail moves to the error state.
func (s *Scanner) fail(err error) Step {
	s.st, s.err = stFailed, err
	return Step{Kind: Error, Err: err}
}

// need returns a NeedRanges step for the parts of rs not yet pushed, or ok=true when every
// byte is present.
func (s *Scanner) need(rs ...httprange.Range) (Step, bool) {
	var missing []httprange.Range
	for _, r := range rs {
		missing = append(missing, s.cache.Missing(r)...)
	}
	if len(missing) == 0 {
		return Step{}, true
	}
	plan := httprange.Coalesce(missing, httprange.CoalesceOptions{})
	s.report.RoundTrips++
	s.report.Requests += len(plan)
	s.report.BytesRequested += httprange.Total(plan)
	return Step{Kind: NeedRanges, Ranges: plan}, false
}

// Next advances the scan. See Scanner.
func (s *Scanner) Next() (step Step) {
	defer func() {
		// The engine must never take its host down: a bug or a hostile input that slips past
		// a check becomes an error step.
		if r := recover(); r != nil {
			step = s.fail(fmt.Errorf("%w: %v", ErrInternal, r))
		}
	}()
	for {
		switch s.st {
		case stTail:
			if s.size == 0 {
				return Step{Kind: NeedRanges, Ranges: []httprange.Range{{Off: -s.opts.TailSize, Len: s.opts.TailSize}}}
			}
			if s.size < 12 {
				return s.fail(fmt.Errorf("%w: %d bytes is too small for a Parquet file", ErrNotParquet, s.size))
			}
			tl := min(s.opts.TailSize, s.size)
			if st, ok := s.need(httprange.Range{Off: s.size - tl, Len: tl}); !ok {
				return st
			}
			if err := s.readTail(); err != nil {
				return s.fail(err)
			}
		case stFooter:
			r := httprange.Range{Off: s.metaStart, Len: s.size - 8 - s.metaStart}
			if st, ok := s.need(r); !ok {
				return st
			}
			if err := s.readFooter(r); err != nil {
				return s.fail(err)
			}
			s.st = stRowGroup
		case stRowGroup:
			if len(s.rgs) == 0 || s.limitLeft == 0 {
				s.st = stDone
				if !s.emitted {
					// An empty result still carries the schema.
					return s.emit(0)
				}
				continue
			}
			if st, ok := s.need(s.prefetch()...); !ok {
				return st
			}
			if err := s.openRowGroup(s.rgs[0]); err != nil {
				return s.fail(err)
			}
			s.rgs = s.rgs[1:]
			s.st = stRows
		case stRows:
			if s.rgLeft == 0 || s.limitLeft == 0 {
				s.releaseRowGroup(s.rg)
				s.st = stRowGroup
				continue
			}
			n := min(int64(s.opts.BatchRows), s.rgLeft)
			if s.limitLeft > 0 {
				n = min(n, s.limitLeft)
			}
			if st, ok := s.readBatch(int(n)); ok {
				return st
			}
		case stDone:
			return Step{Kind: Done}
		case stFailed:
			return Step{Kind: Error, Err: s.err}
		}
	}
}

// readTail parses the last 8 bytes: footer length and magic.
func (s *Scanner) readTail() error {
	b, _ := s.cache.Get(httprange.Range{Off: s.size - 8, Len: 8})
	switch string(b[4:]) {
	case format.MagicEncrypted:
		return ErrEncrypted
	case format.Magic:
	default:
		return fmt.Errorf("%w: the file does not end with PAR1", ErrNotParquet)
	}
	n := int64(binary.LittleEndian.Uint32(b[:4]))
	if n > s.size-12 {
		return fmt.Errorf("%w: footer of %d bytes in a file of %d bytes", ErrNotParquet, n, s.size)
	}
	if n > s.opts.MemoryCap {
		return fmt.Errorf("%w: footer of %d bytes exceeds the memory cap", ErrMemoryCap, n)
	}
	s.metaStart = s.size - 8 - n
	s.st = stFooter
	return nil
}

// readFooter decodes FileMetaData and plans the scan.
func (s *Scanner) readFooter(r httprange.Range) error {
	b, _ := s.cache.Get(r)
	meta, err := format.DecodeFileMetaData(b)
	if err != nil {
		return fmt.Errorf("scan: footer: %w", err)
	}
	if meta.Encrypted {
		return ErrEncrypted
	}
	s.meta = meta
	schema, err := decode.BuildSchema(meta.Schema)
	if err != nil {
		return err
	}
	s.schema = schema
	cols, err := schema.Project(s.opts.Columns)
	if err != nil {
		return err
	}
	s.cols = cols
	s.leaves = nil
	for _, c := range cols {
		s.leaves = c.Leaves(s.leaves)
		s.out.Fields = append(s.out.Fields, c.Field)
	}
	if err := s.bindWhere(); err != nil {
		return err
	}
	s.readLeaves = append([]*decode.Column(nil), s.leaves...)
	if s.pred != nil {
		for _, path := range s.pred.paths {
			l := s.pred.leaf[path]
			dup := false
			for _, r := range s.readLeaves {
				dup = dup || r.Node.Leaf == l.Node.Leaf
			}
			if !dup {
				s.readLeaves = append(s.readLeaves, l)
			}
		}
	}
	for i := range meta.RowGroups {
		rg := &meta.RowGroups[i]
		if len(rg.Columns) != len(schema.Leaves) {
			return fmt.Errorf("%w: row group %d has %d column chunks, the schema %d leaves", ErrCorrupt, i, len(rg.Columns), len(schema.Leaves))
		}
		if rg.NumRows < 0 {
			return fmt.Errorf("%w: row group %d has %d rows", ErrCorrupt, i, rg.NumRows)
		}
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			if cc.HasCryptoMetadata || cc.EncryptedColumnMetadata != nil {
				return ErrEncrypted
			}
			if cc.MetaData == nil {
				return fmt.Errorf("%w: row group %d column %d has no metadata", ErrCorrupt, i, j)
			}
		}
		s.report.RowsTotal += rg.NumRows
	}
	s.report.RowGroupsTotal = len(meta.RowGroups)
	return s.plan()
}

// plan chooses the row groups to read: the slice level (offset and limit) first when there
// is no filter, then row-group statistics.
func (s *Scanner) plan() error {
	if s.pred != nil {
		return s.planFiltered()
	}
	skip := s.offsetLeft
	for i := range s.meta.RowGroups {
		n := s.meta.RowGroups[i].NumRows
		if n == 0 {
			continue
		}
		if skip >= n {
			skip -= n
			continue
		}
		s.rgs = append(s.rgs, i)
	}
	s.offsetLeft = skip
	s.report.RowGroupsAfterSlice = len(s.rgs)
	s.report.RowGroupsAfterStats = len(s.rgs)
	s.report.RowGroupsAfterDict = len(s.rgs)
	s.report.RowGroupsAfterBloom = len(s.rgs)
	if s.limitLeft >= 0 {
		// Drop row groups past the limit.
		need := s.limitLeft + s.offsetLeft
		for i, rg := range s.rgs {
			if need <= 0 {
				s.rgs = s.rgs[:i]
				break
			}
			need -= s.meta.RowGroups[rg].NumRows
		}
		s.report.RowGroupsAfterSlice = len(s.rgs)
	}
	return nil
}

// chunkRange returns the byte range of a projected leaf's column chunk in row group rg.
func (s *Scanner) chunkRange(rg int, leaf *decode.Column) (httprange.Range, error) {
	cm := s.meta.RowGroups[rg].Columns[leaf.Node.Leaf].MetaData
	start := cm.DataPageOffset
	if d := cm.DictionaryPageOffset; d != nil && *d > 0 && *d < start {
		start = *d
	}
	r := httprange.Range{Off: start, Len: cm.TotalCompressedSize}
	if start < 4 || r.Len < 0 || r.End() > s.metaStart {
		return r, fmt.Errorf("%w: column chunk %s of row group %d at [%d, %d) lies outside the data of the file (%d bytes)",
			ErrCorrupt, strings.Join(leaf.Node.Path, "."), rg, r.Off, r.End(), s.metaStart)
	}
	if r.Len > s.opts.MemoryCap {
		return r, fmt.Errorf("%w: column chunk %s of row group %d is %d bytes", ErrMemoryCap, strings.Join(leaf.Node.Path, "."), rg, r.Len)
	}
	return r, nil
}

// prefetch returns the chunk ranges of the next row group, plus following row groups while
// they fit in a prefetch budget, so that a scan of many small row groups costs few round trips.
func (s *Scanner) prefetch() []httprange.Range {
	budget := s.opts.MemoryCap / 4
	var out []httprange.Range
	var total int64
	for k, rg := range s.rgs {
		var rgRanges []httprange.Range
		var rgBytes int64
		for _, l := range s.readLeaves {
			r, err := s.chunkRange(rg, l)
			if err != nil {
				// Reported with its context by openRowGroup.
				if k == 0 {
					return nil
				}
				return out
			}
			rgRanges = append(rgRanges, r)
			rgBytes += r.Len
		}
		if k > 0 && total+rgBytes > budget {
			break
		}
		out = append(out, rgRanges...)
		total += rgBytes
	}
	return out
}

// openRowGroup creates a column reader per projected leaf over the chunk bytes.
func (s *Scanner) openRowGroup(rg int) error {
	g := &s.meta.RowGroups[rg]
	s.rg = rg
	s.readers = s.readers[:0]
	if s.batches == nil {
		s.batches = map[int]*decode.LeafBatch{}
	}
	for _, l := range s.readLeaves {
		r, err := s.chunkRange(rg, l)
		if err != nil {
			return err
		}
		b, ok := s.cache.Get(r)
		if !ok {
			return fmt.Errorf("%w: chunk bytes missing after push", ErrInternal)
		}
		cr, err := decode.NewColumnReader(l, g.Columns[l.Node.Leaf].MetaData, g.NumRows,
			decode.ReaderOptions{MemoryCap: int(s.opts.MemoryCap), VerifyCRC: true})
		if err != nil {
			return err
		}
		cr.SetChunk(b)
		s.readers = append(s.readers, cr)
		if _, ok := s.batches[l.Node.Leaf]; !ok {
			s.batches[l.Node.Leaf] = &decode.LeafBatch{}
		}
	}
	s.rgLeft = g.NumRows
	s.report.RowsScanned += g.NumRows
	if s.offsetLeft > 0 && s.pred == nil {
		for _, cr := range s.readers {
			if err := cr.Skip(s.offsetLeft); err != nil {
				return err
			}
		}
		s.rgLeft -= s.offsetLeft
		s.offsetLeft = 0
	}
	return nil
}

func (s *Scanner) releaseRowGroup(rg int) {
	for _, l := range s.readLeaves {
		if r, err := s.chunkRange(rg, l); err == nil {
			s.cache.Release(r)
		}
	}
}

// readBatch reads n rows from every leaf read, filters them, assembles the projected Arrow
// columns and emits them. ok is false when no row of the batch survives the filter.
func (s *Scanner) readBatch(n int) (Step, bool) {
	for i, cr := range s.readers {
		b := s.batches[s.readLeaves[i].Node.Leaf]
		b.Reset(s.readLeaves[i].Conv.OutWidth)
		if err := cr.Read(n, b); err != nil {
			return s.fail(fmt.Errorf("row group %d: %w", s.rg, err)), true
		}
	}
	s.rgLeft -= int64(n)
	m := n
	if s.pred != nil {
		var err error
		if m, err = s.filter(n); err != nil {
			return s.fail(fmt.Errorf("row group %d: %w", s.rg, err)), true
		}
		if m == 0 {
			return Step{}, false
		}
	} else {
		s.report.RowsMatched += int64(n)
	}
	if s.limitLeft > 0 {
		s.limitLeft -= int64(m)
	}
	return s.emit(m), true
}

// filter evaluates the predicate over the batch, applies offset and limit to the matching
// rows and keeps only the selected rows in the projected leaves. It returns the rows kept.
func (s *Scanner) filter(n int) (int, error) {
	p := s.pred
	vecs := map[string]*prune.Vector{}
	for _, path := range p.paths {
		l := p.leaf[path]
		a, err := decode.Assemble(l, n, func(leaf int) *decode.LeafBatch { return s.batches[leaf] })
		if err != nil {
			return 0, err
		}
		vecs[path] = vector(a, p.types[path], l.Field.Type)
	}
	if cap(s.sel) < n {
		s.sel = make([]bool, n)
	}
	sel := s.sel[:n]
	if err := p.bound.Filter(func(path string) *prune.Vector { return vecs[path] }, n, sel); err != nil {
		return 0, err
	}
	m := 0
	for i, ok := range sel {
		if !ok {
			continue
		}
		s.report.RowsMatched++
		switch {
		case s.offsetLeft > 0:
			s.offsetLeft--
			sel[i] = false
		case s.limitLeft >= 0 && int64(m) >= s.limitLeft:
			sel[i] = false
		default:
			m++
		}
	}
	if m == n {
		return m, nil
	}
	for _, l := range s.leaves {
		decode.FilterRows(s.batches[l.Node.Leaf], l, sel)
	}
	return m, nil
}

// emit assembles the current leaf batches into Arrow arrays and encodes an IPC stream.
func (s *Scanner) emit(n int) Step {
	s.arrays = s.arrays[:0]
	for _, c := range s.cols {
		var a *arrowipc.Array
		var err error
		if n == 0 {
			a = emptyArray(c)
		} else {
			a, err = decode.Assemble(c, n, func(leaf int) *decode.LeafBatch { return s.batches[leaf] })
			if err != nil {
				return s.fail(fmt.Errorf("row group %d: %w", s.rg, err))
			}
		}
		s.arrays = append(s.arrays, a)
	}
	ipc, err := arrowipc.WriteStream(s.ipc[:0], &s.out, n, s.arrays)
	if err != nil {
		return s.fail(fmt.Errorf("%w: %v", ErrInternal, err))
	}
	s.ipc = ipc
	s.emitted = true
	s.report.RowsReturned += int64(n)
	return Step{Kind: Batch, IPC: ipc}
}

// emptyArray is a zero-length array of c's type.
func emptyArray(c *decode.Column) *arrowipc.Array {
	a := &arrowipc.Array{}
	switch c.Field.Type.ID {
	case arrowipc.Utf8, arrowipc.Binary, arrowipc.List, arrowipc.Map:
		a.Offsets = []int32{0}
	}
	for _, ch := range c.Children {
		a.Children = append(a.Children, emptyArray(ch))
	}
	return a
}
