package scan

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/variant"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// state is the engine's position in the scan (an explicit state machine, as in arrow-rs'
// push decoder: each state either asks for bytes or makes progress).
type state uint8

const (
	stTail   state = iota // need the file's tail (footer length + magic)
	stFooter              // need the whole footer
	stIndex               // need page indexes, bloom filters, dictionaries for pruning
	stWindow              // choose the next row groups to read
	stPre                 // need the covering columns' pages, to narrow the candidate rows (preFilter)
	stFetchA              // need the predicate columns' pages (and more, see lateMat)
	stFetchB              // need the other projected columns' pages over the matching rows
	stEmit                // emitting batches
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

	metaStart  int64                // offset of the footer's FileMetaData
	meta       *format.FileMetaData // read-only: it may be shared through the footer cache
	footers    *FooterCache         // nil: no footer cache
	cachedMeta *format.FileMetaData // the footer cache's hit, decoded by an earlier session
	triedCache bool
	// sharesPushed: the footer cache holds bytes of this session's pushes (SharesPushedBytes).
	sharesPushed bool
	metaSent     bool             // the Metadata step was returned
	clock        func() time.Time // nil: no phase timings (SetClock)
	shapeOut     *arrowipc.Schema // with shape: the schema of what emit writes (SetShaper)
	shape        Shaper
	// jsonOut is emitSchema with Options.VariantJSON: jsonOf (the schema it was made from)
	// with its variants as JSON text.
	jsonOf, jsonOut *arrowipc.Schema
	writer          format.WriterVersion // parsed created_by, for the writer-bug table
	schema          *decode.Schema
	cols            []*decode.Column // projected top-level columns
	leaves          []*decode.Column // their leaves
	readLeaves      []*decode.Column // leaves read: projected plus predicate columns
	pred            *predicate
	extra           []prune.Expr // conjuncts added by Tighten (tighten.go)
	tight           *tightening  // a Tighten waiting for the round in flight to end
	// tightenHook (tests): called as a tighten takes effect, with the row groups (or parts)
	// it applies to; all: every row of the file (it arrived before the index round).
	tightenHook func(all bool, plan []*rgState)
	tk          *topk   // Options.OrderBy (topk.go)
	floor       *ubound // SetSortFloor: a table's k-th row so far (topk_table.go)
	sel         []bool
	out         arrowipc.Schema
	deleted     prune.RowSelection // SetDeleted: positions in the file (deleted.go)

	plan    []*rgState // row groups still to read, after the statistics level
	window  []*rgState // row groups being read now
	emitAt  int        // window position of the row group being emitted
	runAt   int        // next run of that row group's match
	runOff  int64      // rows of that run already emitted
	readers []*decode.ColumnReader
	batches map[int]*decode.LeafBatch
	lateMat bool
	// filteredAt: the window's first row groups already filtered (filterArrived filters
	// them one by one as their bytes arrive, filterWindow the rest).
	filteredAt int
	early      map[int]bool // window positions past filteredAt filtered out of order (no offset or limit left)
	// asked: ranges of earlier NeedRanges steps not pushed yet, so that a host asked again
	// while they are in flight does not count them twice in the report (pipeline.go).
	asked   []httprange.Range
	indexed bool // the index round's ranges are present
	// proved: secondProofs ran; second are the ranges of the second probe round it asked for.
	proved bool
	second []httprange.Range
	// dictLeaf marks the top-level string columns emitted as Arrow dictionary arrays.
	dictLeaf map[int]bool

	offsetLeft int64 // rows still to skip for Options.Offset
	// probeTarget caps the predicate bytes of the next window of a filtered limit (nextWindow).
	probeTarget int64
	limitLeft   int64        // rows still to select; -1 = no limit
	counted     int64        // Options.Count: matching rows so far
	mm          *minMaxState // Options.MinMax: the running answer (minmax.go)
	// Options.RowIndex (rowindex.go): each row group's first row in the file, the positions of
	// the filter's current rows and of the batch being emitted; onlyRowIndex: Columns named
	// the row index alone.
	rgStarts          []int64
	batchRows, riVals []int64
	pieces            []prune.RowRange // evalStage's batch: its rows as pieces of runs
	onlyRowIndex      bool
	rowIndexAt        int // its position among the output columns
	emitted           bool
	ipc               []byte
	arrays            []*arrowipc.Array
	placeAt, placed   int // place.go: where the next batch's values go in ipc; batches placed
	report            Report
	// marks: per row group, the page letters of its leaves (pages.go); pageMarkCount bounds them.
	marks         map[int]pageMarks
	pageMarkCount int
}

// New starts a scan. It does no I/O; the first Next asks for the file's tail.
func New(opts Options) (*Scanner, error) { return NewCached(opts, nil) }

// NewCached is New with a footer cache shared by the engine's sessions (see
// Options.FileKey); nil means none.
func NewCached(opts Options, footers *FooterCache) (*Scanner, error) {
	opts.normalize()
	if opts.FileSize < 0 || opts.Limit < 0 || opts.Offset < 0 {
		return nil, errf.Errorf("%w: negative file size, limit or offset", ErrOptions)
	}
	if err := opts.checkDisable(); err != nil {
		return nil, err
	}
	if err := opts.checkMinMax(); err != nil {
		return nil, err
	}
	if err := opts.checkUnit(); err != nil {
		return nil, err
	}
	s := &Scanner{opts: opts, size: opts.FileSize, offsetLeft: opts.Offset, limitLeft: -1, footers: footers}
	if opts.Limit > 0 {
		s.limitLeft = opts.Limit
	}
	if opts.Count || opts.OrderBy != "" {
		s.offsetLeft = 0 // a sorted scan's offset and limit apply to the sorted rows (topk.go) // a count's offset and limit apply to the count (emitCount)
		s.limitLeft = -1
	}
	s.report.FileSize = opts.FileSize
	s.report.LevelsOff = append([]string(nil), opts.Disable...)
	return s, nil
}

// SetFileSize reports the file size learned by the host when Options.FileSize was 0.
func (s *Scanner) SetFileSize(n int64) error {
	if n <= 0 {
		return errf.Errorf("%w: file size %d", ErrOptions, n)
	}
	if s.size != 0 && s.size != n {
		return errf.Errorf("%w: file size changed from %d to %d", ErrFileChanged, s.size, n)
	}
	s.size = n
	s.report.FileSize = n
	return nil
}

// Push hands the engine bytes of the file starting at off. The engine copies what it keeps,
// so the caller may reuse b.
func (s *Scanner) Push(off int64, b []byte) error { return s.push(off, b, false) }

// PushOwned is Push without the copy: the scanner keeps b (or the parts of it that hold bytes
// it had not seen), so the caller must not modify b afterwards. The wasm module uses it for
// buffers the host wrote into and handed over (pq_push_owned).
func (s *Scanner) PushOwned(off int64, b []byte) error { return s.push(off, b, true) }

func (s *Scanner) push(off int64, b []byte, owned bool) error {
	if off < 0 || (s.size > 0 && off+int64(len(b)) > s.size) {
		return errf.Errorf("%w: pushed bytes [%d, %d) outside the file of %d bytes", ErrOptions, off, off+int64(len(b)), s.size)
	}
	s.report.BytesPushed += int64(len(b))
	if len(s.asked) > 0 {
		s.asked = httprange.Subtract(s.asked, []httprange.Range{{Off: off, Len: int64(len(b))}})
	}
	if owned {
		return s.cache.PushOwned(off, b)
	}
	return s.cache.Push(off, b)
}

// Report returns the scan report so far.
func (s *Scanner) Report() Report {
	r := s.report
	s.pageColumns(&r)
	return r
}

// Schema returns an Arrow IPC stream holding only the output schema; it is available once
// the footer has been decoded (after the first NeedRanges is satisfied).
func (s *Scanner) Schema() ([]byte, error) {
	if s.meta == nil {
		return nil, ErrNoFooter
	}
	return arrowipc.WriteSchema(nil, s.emitSchema())
}

// Metadata returns the decoded footer, or nil before it is read.
func (s *Scanner) Metadata() *format.FileMetaData { return s.meta }

// Shaper rewrites a batch's columns (in, laid out as the scan's own output schema) into the
// columns of another schema before they are written as IPC: the table layer maps each file's
// columns onto the table's (missing columns as nulls, widened types, partition values).
type Shaper func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) ([]*arrowipc.Array, error)

// SetShaper makes every batch (and the schema of Metadata, pq_schema) follow out, built by
// shape. Call it before the first Next.
func (s *Scanner) SetShaper(out *arrowipc.Schema, shape Shaper) { s.shapeOut, s.shape = out, shape }

// OutputSchema is the schema of the scan's own columns (before a Shaper), once the footer has
// been decoded; nil before.
func (s *Scanner) OutputSchema() *arrowipc.Schema {
	if s.meta == nil {
		return nil
	}
	return &s.out
}

// emitSchema is the schema batches are written with.
func (s *Scanner) emitSchema() *arrowipc.Schema {
	base := s.baseSchema()
	if !s.opts.VariantJSON {
		return base
	}
	if s.jsonOf != base {
		fs, _ := variant.JSONFields(base.Fields)
		s.jsonOf, s.jsonOut = base, &arrowipc.Schema{Fields: fs, Metadata: base.Metadata}
	}
	return s.jsonOut
}

// baseSchema is the schema of the scan's columns after a Shaper, variants canonical.
func (s *Scanner) baseSchema() *arrowipc.Schema {
	if s.shape != nil {
		return s.shapeOut
	}
	return &s.out
}

// fileInfo is the Metadata step's content.
func (s *Scanner) fileInfo() (*FileInfo, error) {
	fi := newFileInfo(s.size, s.meta)
	b, err := arrowipc.WriteSchema(nil, s.emitSchema())
	if err != nil {
		return nil, errf.Errorf("%w: schema: %v", ErrInternal, err)
	}
	fi.SchemaIPC = b
	return fi, nil
}

// fail moves to the error state.
func (s *Scanner) fail(err error) Step {
	if errors.Is(err, decode.ErrChecksum) && !errors.Is(err, ErrCorrupt) {
		err = corruptPage{err}
	}
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
	// Gaps up to MaxGap are read rather than split, but never a gap holding bytes already
	// pushed: fetching them again would make a round cost more than its chunks read once
	// (a small predicate chunk between two others would be fetched twice).
	var plan []httprange.Range
	for _, r := range httprange.Coalesce(missing, httprange.CoalesceOptions{MaxGap: s.opts.MaxGap}) {
		plan = append(plan, s.cache.Missing(r)...)
	}
	s.countAsked(plan)
	return Step{Kind: NeedRanges, Ranges: plan}, false
}

// readTail parses the last 8 bytes: footer length and magic.
func (s *Scanner) readTail() error {
	b, _ := s.cache.Get(httprange.Range{Off: s.size - 8, Len: 8})
	switch string(b[4:]) {
	case format.MagicEncrypted:
		return ErrEncrypted
	case format.Magic:
	default:
		return errf.Errorf("%w: the file does not end with PAR1", ErrNotParquet)
	}
	n := int64(binary.LittleEndian.Uint32(b[:4]))
	if n > s.size-12 {
		return errf.Errorf("%w: footer of %d bytes in a file of %d bytes", ErrNotParquet, n, s.size)
	}
	if n > s.opts.MemoryCap {
		return errf.Errorf("%w: footer of %d bytes exceeds the memory cap", ErrMemoryCap, n)
	}
	s.metaStart = s.size - 8 - n
	s.st = stFooter
	return nil
}

// readFooter decodes FileMetaData (or takes it from the footer cache) and plans the scan.
func (s *Scanner) readFooter(r httprange.Range) error {
	meta := s.cachedMeta
	if meta == nil {
		b, _ := s.cache.Get(r)
		var err error
		if meta, err = format.DecodeFileMetaData(b); err != nil {
			return errf.Errorf("scan: footer: %w", err)
		}
		if meta.Encrypted {
			return ErrEncrypted
		}
	}
	if err := codecsInModule(meta); err != nil {
		return err
	}
	s.meta = meta
	if meta.CreatedBy != nil {
		s.writer = format.ParseCreatedBy(*meta.CreatedBy)
	}
	for _, b := range s.writer.Bugs() {
		s.logf("writer workaround %s: %s", b.ID, b.Summary)
	}
	schema, err := decode.BuildSchema(meta.Schema)
	if err != nil {
		return err
	}

	s.schema = schema
	s.rgStarts = rowStarts(meta)
	if err := s.checkRowIndex(); err != nil {
		return err
	}
	var cols []*decode.Column
	switch {
	case s.opts.Count:
		s.out.Fields = []arrowipc.Field{countField} // no column is read but the predicate's
	case s.opts.MinMax != "":
		if cols, err = s.minMaxColumn(schema); err != nil {
			return err
		}
	case s.onlyRowIndex:
	default:
		if cols, err = schema.Project(s.opts.Columns); err != nil {
			return err
		}
	}
	ri := s.opts.RowIndex != "" && !s.opts.Count
	s.cols = cols
	s.leaves = nil
	for _, c := range cols {
		s.leaves = c.Leaves(s.leaves)
		f := c.Field
		if s.dictionaryOutput(c) {
			f.Type.Dictionary = true
			if s.dictLeaf == nil {
				s.dictLeaf = map[int]bool{}
			}
			s.dictLeaf[c.Node.Leaf] = true
		} else if md := geoArrowMeta(c, meta.KeyValueMetadata); md != nil {
			f.Metadata = md
		}
		s.out.Fields = append(s.out.Fields, f)
	}
	if ri {
		s.out.Fields = slices.Insert(s.out.Fields, min(s.rowIndexAt, len(s.out.Fields)), rowIndexField(s.opts.RowIndex))
	}
	if s.mm != nil {
		s.out.Fields = s.mm.fields()
	}
	if err := s.bindWhere(); err != nil {
		return err
	}
	s.readLeaves = readLeavesOf(s.leaves, s.pred)
	if err := s.setupTopK(); err != nil {
		return err
	}
	for i := range meta.RowGroups {
		rg := &meta.RowGroups[i]
		if len(rg.Columns) != len(schema.Leaves) {
			return errf.Errorf("%w: row group %d has %d column chunks, the schema %d leaves", ErrCorrupt, i, len(rg.Columns), len(schema.Leaves))
		}
		if rg.NumRows < 0 {
			return errf.Errorf("%w: row group %d has %d rows", ErrCorrupt, i, rg.NumRows)
		}
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			if cc.HasCryptoMetadata || cc.EncryptedColumnMetadata != nil {
				return ErrEncrypted
			}
			if cc.MetaData == nil {
				return errf.Errorf("%w: row group %d column %d has no metadata", ErrCorrupt, i, j)
			}
		}
		s.report.RowsTotal += rg.NumRows
	}
	s.report.RowGroupsTotal = len(meta.RowGroups)
	if s.cachedMeta == nil {
		// Only a footer that passed the checks above is worth keeping.
		s.cacheFooter()
	}
	return s.planStats()
}

// chunkRange returns the byte range of a leaf's column chunk in row group rg
// (fileLayout.chunkRange).
func (s *Scanner) chunkRange(rg int, leaf *decode.Column) (httprange.Range, error) {
	return s.layout().chunkRange(rg, leaf)
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
				return s.fail(err)
			}
		}
		s.arrays = append(s.arrays, a)
	}
	return s.write(n)
}

// write encodes s.arrays, n rows, as an IPC stream (with the row index and the Shaper).
func (s *Scanner) write(n int) Step {
	if s.opts.RowIndex != "" && !s.opts.Count {
		s.arrays = slices.Insert(s.arrays, min(s.rowIndexAt, len(s.arrays)), s.rowIndexArray())
	}
	cols := s.arrays
	if s.shape != nil {
		var err error
		if cols, err = s.shape(n, &s.out, s.arrays); err != nil {
			return s.fail(err)
		}
	}
	if s.opts.VariantJSON {
		var err error
		if cols, err = variant.JSONArrays(s.baseSchema().Fields, cols); err != nil {
			return s.fail(errf.Errorf("%w: %w", decode.ErrValue, err))
		}
	}
	ipc, err := arrowipc.WriteStream(s.ipc[:0], s.emitSchema(), n, cols)
	if err != nil {
		return s.fail(errf.Errorf("%w: %v", ErrInternal, err))
	}
	s.ipc = ipc
	s.notePlace(cols)
	s.emitted = true
	s.report.RowsReturned += int64(n)
	return Step{Kind: Batch, IPC: ipc}
}

// emptyArray is a zero-length array of c's type.
func emptyArray(c *decode.Column) *arrowipc.Array {
	// From the output type, not the Parquet columns: a variant's physical children are not
	// its output's.
	return newArray(&c.Field.Type)
}

// dictionaryOutput reports whether top-level column c is emitted as an Arrow dictionary
// array: Options.DictionaryArrays, a string or binary column, and every chunk of it fully
// dictionary-encoded (so every batch carries indices into its row group's dictionary and the
// schema is the same for every batch).
func (s *Scanner) dictionaryOutput(c *decode.Column) bool {
	if !s.opts.DictionaryArrays || s.opts.OrderBy != "" || s.opts.MinMax != "" || c.Kind != decode.KindLeaf {
		return false
	}
	if id := c.Field.Type.ID; id != arrowipc.Utf8 && id != arrowipc.Binary {
		return false
	}
	for i := range s.meta.RowGroups {
		cols := s.meta.RowGroups[i].Columns
		if c.Node.Leaf >= len(cols) || cols[c.Node.Leaf].MetaData == nil || !fullyDictionary(cols[c.Node.Leaf].MetaData) {
			return false
		}
	}
	return len(s.meta.RowGroups) > 0
}
