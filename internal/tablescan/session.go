package tablescan

import (
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
)

// PushFile hands the session bytes of file file starting at off (scan.Session.Push for one
// file of the table).
func (t *Table) PushFile(file int, off int64, b []byte) error {
	f, err := t.file(file)
	if err != nil {
		return err
	}
	switch {
	case f.foot != nil:
		err = f.foot.Push(off, b)
	case f.data != nil:
		err = f.data.Push(off, b)
	default:
		return errf.Errorf("%w: bytes pushed for %s, which asked for none", ErrProtocol, f.Path)
	}
	if err != nil {
		return errf.Errorf("%s: %w", f.Path, err)
	}
	return nil
}

// SetFileSizeOf reports the size of a file listed without one, after its suffix request.
func (t *Table) SetFileSizeOf(file int, n int64) error {
	f, err := t.file(file)
	if err != nil {
		return err
	}
	if f.foot == nil {
		return errf.Errorf("%w: a size for %s outside its footer read", ErrProtocol, f.Path)
	}
	if err := f.foot.SetFileSize(n); err != nil {
		return errf.Errorf("%s: %w", f.Path, err)
	}
	f.Size = n // the data session starts with it; the footer cache key stays the listing's
	return nil
}

func (t *Table) file(i int) (*fileState, error) {
	if i < 0 || i >= len(t.files) {
		return nil, errf.Errorf("%w: file %d of a table of %d", ErrProtocol, i, len(t.files))
	}
	return t.files[i], nil
}

// Push implements scan.Session; a table's bytes name their file (PushFile).
func (t *Table) Push(int64, []byte) error {
	return errf.Errorf("%w: Push on a table session; use PushFile", ErrProtocol)
}

// SetFileSize implements scan.Session; a table's sizes name their file (SetFileSizeOf).
func (t *Table) SetFileSize(int64) error {
	return errf.Errorf("%w: SetFileSize on a table session; use SetFileSizeOf", ErrProtocol)
}

// Close implements scan.Session.
func (t *Table) Close() error { return nil }

// Report is the table's report: files total / after partitions / read, one line per file,
// and the per-file levels' counters summed.
func (t *Table) Report() scan.Report {
	r := t.report
	r.Files = append([]scan.FileReport(nil), t.report.Files...)
	for _, f := range t.files {
		fr := f.report
		if f.foot != nil {
			addFooterCounters(&fr, f.foot.Report())
		}
		if f.data != nil {
			addDataCounters(&fr, f.data.Report())
			r.Files[f.idx].BytesRequested = fr.BytesRequested
		}
		addCounters(&r, fr)
	}
	if t.opts.Count || t.opts.MinMax != "" || t.tk != nil {
		r.RowsReturned = t.report.RowsReturned // the answer's rows, not the files' own
	}
	return r
}

// addFooterCounters adds what a file's footer session read. Its file size, row groups and
// rows are not added: the file's data session reports them again (they were counted twice).
func addFooterCounters(dst *scan.Report, r scan.Report) {
	dst.BytesRequested += r.BytesRequested
	dst.BytesPushed += r.BytesPushed
}

// addDataCounters adds what a file's data session did to the file's report line.
func addDataCounters(dst *scan.Report, r scan.Report) {
	addCounters(dst, r)
	dst.BytesRequested += r.BytesRequested
}

// addCounters adds the level counters of one file to dst. Requests, round trips and bytes
// requested are not added: a table counts its own (its NeedData steps span files).
func addCounters(dst *scan.Report, r scan.Report) {
	dst.FileSize += r.FileSize
	dst.RowGroupsTotal += r.RowGroupsTotal
	dst.RowGroupsAfterSlice += r.RowGroupsAfterSlice
	dst.RowGroupsAfterStats += r.RowGroupsAfterStats
	dst.RowGroupsAfterDict += r.RowGroupsAfterDict
	dst.RowGroupsAfterBloom += r.RowGroupsAfterBloom
	dst.PagesTotal += r.PagesTotal
	dst.PagesAfterPageIndex += r.PagesAfterPageIndex
	dst.PagesAfterLateMat += r.PagesAfterLateMat
	dst.RowsTotal += r.RowsTotal
	dst.RowsScanned += r.RowsScanned
	dst.RowsMatched += r.RowsMatched
	dst.RowsReturned += r.RowsReturned
	dst.BytesPushed += r.BytesPushed
	dst.DictionariesLazy += r.DictionariesLazy
	dst.RowGroupsAllMatch += r.RowGroupsAllMatch
	dst.RowsAllMatch += r.RowsAllMatch
	dst.RowsCountedFromMetadata += r.RowsCountedFromMetadata
	dst.RowGroupsFromMetadata += r.RowGroupsFromMetadata
	dst.TopKSkipped += r.TopKSkipped
	dst.PagesCRCUnverified += r.PagesCRCUnverified
}

// metadataStep hands the host the table schema once the first footer is read.
func (t *Table) metadataStep() scan.Step {
	b, err := arrowipc.WriteSchema(nil, &arrowipc.Schema{Fields: t.outFields()})
	if err != nil {
		return t.fail(errf.Errorf("%w: schema: %v", scan.ErrInternal, err))
	}
	fi := &scan.FileInfo{SchemaIPC: b}
	for _, f := range t.files {
		fi.FileSize += f.Size
	}
	return scan.Step{Kind: scan.Metadata, Meta: fi}
}

// Schema returns the table schema as a schema-only Arrow IPC stream (pq_schema), once the
// first footer is read.
func (t *Table) Schema() ([]byte, error) {
	if t.table == nil {
		return nil, scan.ErrNoFooter
	}
	return arrowipc.WriteSchema(nil, &arrowipc.Schema{Fields: t.outFields()})
}

// PushOwned is Push: a table's bytes name their file (PushFile).
func (t *Table) PushOwned(off int64, b []byte) error { return t.Push(off, b) }
