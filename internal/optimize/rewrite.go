package optimize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
)

// Result says what Rewrite did.
type Result struct {
	Rows      int64
	RowGroups int
	// SortedRuns is the number of runs spilled to disk (0: sorted in memory or not sorted);
	// SpilledBytes their total size.
	SortedRuns   int
	SpilledBytes int64
	// Bloom are the bloom filter columns, with the NDV and FPP given to the writer.
	Bloom []BloomSpec
	// BloomChunks is the number of column chunks written with a bloom filter;
	// BloomDictChunks those of the bloom columns left without one because they stayed fully
	// dictionary-encoded (BloomMode if-no-dict).
	BloomChunks, BloomDictChunks int
	// NDV are the distinct-count estimates of the columns sketched (bloom candidates and
	// bloom columns without an NDV).
	NDV map[string]int64
	// CreatedBy is the footer's created_by.
	CreatedBy string
}

// Input is what Rewrite reads: a *pqscan.File, or a *pqscan.Dataset (several files as one
// table, so that small files are compacted into row-group-sized ones).
type Input interface {
	Schema() *arrow.Schema
	Scan(ctx context.Context, o pqscan.ScanOptions) (*pqscan.Reader, error)
}

// Rewrite reads every row of in through pqscan's engine and writes them to w as a new
// Parquet file shaped by opts. in is scanned once, or twice when bloom filters need
// distinct-count estimates (the first scan reads only the columns sketched).
func Rewrite(ctx context.Context, in Input, w io.Writer, opts Options) (*Result, error) {
	codec, err := ParseCodec(opts.Codec)
	if err != nil {
		return nil, err
	}
	mode, err := ParseBloomMode(opts.BloomMode)
	if err != nil {
		return nil, err
	}
	if mode == BloomNever {
		opts.Bloom, opts.BloomAuto = nil, false
	}
	schema := in.Schema()
	pqSchema, err := pqarrow.ToParquet(schema, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrType, err)
	}
	// Sort keys: top-level leaf columns.
	var keyIdx []int
	var sorting []parquet.SortingColumn
	for _, name := range opts.SortBy {
		if col, ok := strings.CutPrefix(name, "hilbert("); ok && strings.HasSuffix(col, ")") {
			// A geometry column's Hilbert order: not a column order, so not recorded in
			// sorting_columns.
			i, _, err := topLeaf(schema, pqSchema.ColumnIndexByName, strings.TrimSuffix(col, ")"))
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrSortKey, err)
			}
			if _, err := newHilbertCol(emptyArray(schema.Field(i).Type)); err != nil {
				return nil, err
			}
			keyIdx = append(keyIdx, -i-1)
			continue
		}
		i, leaf, err := topLeaf(schema, pqSchema.ColumnIndexByName, name)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSortKey, err)
		}
		if _, err := newKeyCol(emptyArray(schema.Field(i).Type)); err != nil {
			return nil, fmt.Errorf("%w (column %q)", err, name)
		}
		keyIdx = append(keyIdx, i)
		sorting = append(sorting, parquet.SortingColumn{ColumnIdx: int32(leaf)})
	}

	// Bloom filters: explicit ones, then --bloom auto's candidates; sketch what needs an NDV.
	res := &Result{NDV: map[string]int64{}}
	blooms := slices.Clone(opts.Bloom)
	for _, b := range blooms {
		if _, _, err := topLeaf(schema, pqSchema.ColumnIndexByName, b.Column); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBloomColumn, err)
		}
	}
	var sketch []string
	for _, b := range blooms {
		if b.NDV == 0 {
			sketch = append(sketch, b.Column)
		}
	}
	if opts.BloomAuto {
		for _, f := range schema.Fields() {
			if bloomCandidate(f.Type) && !slices.Contains(sketch, f.Name) &&
				!slices.ContainsFunc(blooms, func(b BloomSpec) bool { return b.Column == f.Name }) &&
				(len(opts.SortBy) == 0 || opts.SortBy[0] != f.Name) {
				sketch = append(sketch, f.Name)
			}
		}
	}
	var rows int64 // the input's rows, known when a column was sketched
	if len(sketch) > 0 {
		sk, n, err := sketchColumns(ctx, in, sketch, opts.Progress)
		rows = n
		if err != nil {
			return nil, err
		}
		for name, s := range sk {
			res.NDV[name] = s.estimate()
		}
		if opts.BloomAuto {
			for _, name := range sketch {
				s := sk[name]
				explicit := slices.ContainsFunc(blooms, func(b BloomSpec) bool { return b.Column == name })
				nonNull := s.rows - s.nulls
				wide := nonNull > 0 && s.bytes/nonNull > 64
				if !explicit && !wide && res.NDV[name] >= 1024 && res.NDV[name]*10 > rows {
					blooms = append(blooms, BloomSpec{Column: name})
				}
			}
		}
	}
	rgRows := opts.RowGroupRows
	if rgRows <= 0 {
		rgRows = defaultRowGroupRows
		if opts.RowGroupBytes > 0 {
			rgRows = 1 << 40
		}
	}
	for i := range blooms {
		b := &blooms[i]
		if b.NDV == 0 {
			b.NDV = max(1, min(res.NDV[b.Column], rgRows, rows)) // NDV 0: sketched
		}
		if b.FPP == 0 {
			b.FPP = defaultFPP
		}
	}
	res.Bloom = blooms

	version := opts.Version
	if version == "" {
		version = "devel"
	}
	res.CreatedBy = "pqscan optimize (" + version + ")"
	props := []parquet.WriterProperty{
		parquet.WithCompression(codec),
		parquet.WithMaxRowGroupLength(rgRows),
		parquet.WithPageIndexEnabled(true),
		parquet.WithStats(true),
		parquet.WithCreatedBy(res.CreatedBy),
	}
	if opts.Level != 0 {
		props = append(props, parquet.WithCompressionLevel(opts.Level))
	}
	switch {
	case opts.PageRows > 0:
		// arrow-go checks the page size after each write batch: a one-byte limit cuts a page
		// after every batch of PageRows values.
		props = append(props, parquet.WithBatchSize(opts.PageRows), parquet.WithDataPageSize(1))
	default:
		pb := opts.PageBytes
		if pb <= 0 {
			pb = defaultPageBytes
		}
		// Small write batches keep pages close to the limit (it is checked after each batch).
		props = append(props, parquet.WithDataPageSize(pb), parquet.WithBatchSize(128))
	}
	if len(sorting) > 0 {
		props = append(props, parquet.WithSortingColumns(sorting))
	}
	for _, b := range blooms {
		props = append(props, parquet.WithBloomFilterEnabledFor(b.Column, true),
			parquet.WithBloomFilterNDVFor(b.Column, b.NDV), parquet.WithBloomFilterFPPFor(b.Column, b.FPP))
	}

	r, err := in.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.OnProgress(opts.Progress)
	outSchema, retype, err := int96Convention(r.Schema(), opts) // int96.go
	if err != nil {
		return nil, err
	}
	geoMeta, geoCol, addCover := "", 0, false
	if f, ok := in.(interface{ Metadata() *pqscan.FileInfo }); ok { // one file
		for _, kv := range f.Metadata().KeyValue {
			if kv.Key == "geo" {
				geoMeta = kv.Value
			}
		}
		var meta string
		if geoCol, meta, addCover = covering(geoMeta, outSchema); addCover { // covering.go
			geoMeta, outSchema = meta, withBBox(outSchema)
		}
	}
	tw := &tailWriter{w: w} // bloommode.go: in if-no-dict mode it cuts filters out at the end
	fw, err := pqarrow.NewFileWriter(outSchema, tw, parquet.NewWriterProperties(props...),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	if v := int96Record(opts); v != "" {
		if err := fw.AppendKeyValueMetadata(Int96Key, v); err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
	}
	if geoMeta != "" {
		// GeoParquet metadata describes the rows whatever their order and row groups: kept
		// (with the covering added), so the geometry column, its CRS and its bbox covering
		// stay known.
		if err := fw.AppendKeyValueMetadata("geo", geoMeta); err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
	}
	out := &rowGroupWriter{fw: fw, schema: outSchema, maxBytes: opts.RowGroupBytes, pageRows: opts.PageRows}
	defer out.release()
	var srt *sorter
	if len(keyIdx) > 0 {
		memCap := opts.MemoryCap
		if memCap <= 0 {
			memCap = defaultMemoryCap
		}
		dir := opts.TempDir
		if dir == "" {
			dir = os.TempDir()
		}
		srt = newSorter(outSchema, keyIdx, memCap, dir)
		defer srt.close()
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fw.Close()
			return nil, err
		}
		if rt := retype(rec); rt != rec {
			rec.Release()
			rec = rt
		}
		if addCover {
			rt, err := addBBox(rec, geoCol, outSchema)
			rec.Release()
			if err != nil {
				fw.Close()
				return nil, err
			}
			rec = rt
		}
		if srt != nil {
			err = srt.add(ctx, rec)
		} else {
			err = out.write(rec)
		}
		rec.Release()
		if err != nil {
			fw.Close()
			return nil, err
		}
	}
	if srt != nil {
		if err := srt.finish(ctx, out.write); err != nil {
			fw.Close()
			return nil, err
		}
		res.SortedRuns, res.SpilledBytes = srt.spilledRuns, srt.spilledBytes
	}
	if err := out.flush(); err != nil {
		fw.Close()
		return nil, err
	}
	ifNoDict := mode == BloomIfNoDict && len(blooms) > 0
	if ifNoDict {
		tw.hold()
	}
	if err := fw.Close(); err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	md, err := fw.FileMetadata()
	if err == nil {
		res.Rows, res.RowGroups = md.NumRows, md.NumRowGroups()
		if !ifNoDict {
			res.BloomChunks = md.NumRowGroups() * len(blooms)
		}
	}
	if ifNoDict {
		if res.BloomChunks, res.BloomDictChunks, err = tw.finish(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// rowGroupWriter feeds a buffered pqarrow writer, closing row groups at maxBytes of
// compressed data pages (checked every rowGroupCheckRows rows) when maxBytes > 0; the row
// count limit is the writer's MaxRowGroupLength. arrow-go does not expose the size of a
// dictionary before the row group closes, so dictionary pages are not counted: a row group
// can exceed maxBytes by its dictionaries (each at most the 1 MiB dictionary page limit).
//
// With pageRows > 0 the writer cuts a page at the end of every write call, so rows are
// re-chunked into calls of a multiple of pageRows rows (pages stay exact when the row group
// size is a multiple of pageRows too).
type rowGroupWriter struct {
	fw       *pqarrow.FileWriter
	schema   *arrow.Schema
	maxBytes int64
	pageRows int64
	newGroup bool // the row group is full: start a new one before the next row
	carry    []arrow.RecordBatch
	carryN   int64
}

// chunk is the number of rows per write call, 0 for "as given".
func (w *rowGroupWriter) chunk() int64 {
	switch {
	case w.pageRows > 0:
		return w.pageRows * max(1, rowGroupCheckRows/w.pageRows)
	case w.maxBytes > 0:
		return rowGroupCheckRows
	}
	return 0
}

func (w *rowGroupWriter) write(rec arrow.RecordBatch) error {
	n := w.chunk()
	if n == 0 {
		return w.fw.WriteBuffered(rec)
	}
	rec.Retain()
	w.carry = append(w.carry, rec)
	w.carryN += rec.NumRows()
	if w.carryN < n {
		return nil
	}
	all, err := concat(w.schema, w.carry, memory.DefaultAllocator)
	w.release()
	if err != nil {
		return err
	}
	defer all.Release()
	full := all.NumRows() / n * n
	for lo := int64(0); lo < full; lo += n {
		if err := w.put(all.NewSlice(lo, lo+n)); err != nil {
			return err
		}
	}
	if full < all.NumRows() {
		w.carry, w.carryN = append(w.carry, all.NewSlice(full, all.NumRows())), all.NumRows()-full
	}
	return nil
}

// flush writes the rows held back by write.
func (w *rowGroupWriter) flush() error {
	if w.carryN == 0 {
		w.release()
		return nil
	}
	all, err := concat(w.schema, w.carry, memory.DefaultAllocator)
	w.release()
	if err != nil {
		return err
	}
	return w.put(all)
}

func (w *rowGroupWriter) release() {
	for _, r := range w.carry {
		r.Release()
	}
	w.carry, w.carryN = w.carry[:0], 0
}

// put writes part (and releases it), starting a new row group first when the last one is full.
func (w *rowGroupWriter) put(part arrow.RecordBatch) error {
	defer part.Release()
	if w.newGroup {
		if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
			return err
		}
		w.newGroup = false
	}
	if err := w.fw.WriteBuffered(part); err != nil {
		return err
	}
	w.newGroup = w.maxBytes > 0 && w.fw.RowGroupTotalCompressedBytes() >= w.maxBytes
	return nil
}

// topLeaf finds a top-level field that is one Parquet leaf; it returns the field index and
// the leaf column index.
func topLeaf(schema *arrow.Schema, leafByName func(string) int, name string) (field, leaf int, err error) {
	idx := schema.FieldIndices(name)
	if len(idx) != 1 {
		return 0, 0, fmt.Errorf("no top-level column %q", name)
	}
	leaf = leafByName(name)
	if leaf < 0 {
		return 0, 0, fmt.Errorf("column %q is nested, not a leaf", name)
	}
	return idx[0], leaf, nil
}

// sketchColumns scans cols and returns a distinct-count sketch per column and the row count.
func sketchColumns(ctx context.Context, in Input, cols []string, progress func(pqscan.Progress)) (map[string]*kmv, int64, error) {
	r, err := in.Scan(ctx, pqscan.ScanOptions{Columns: cols})
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	r.OnProgress(progress)
	sk := make(map[string]*kmv, len(cols))
	for _, c := range cols {
		sk[c] = newKMV()
	}
	var rows int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return sk, rows, nil
		}
		if err != nil {
			return nil, 0, err
		}
		rows += rec.NumRows()
		for i, f := range rec.Schema().Fields() {
			if s := sk[f.Name]; s != nil {
				s.addArray(rec.Column(i))
			}
		}
		rec.Release()
	}
}
