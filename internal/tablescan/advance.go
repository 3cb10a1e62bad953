package tablescan

import (
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
)

// Which files of a table session run: the footers of every surviving file, then data sessions
// in file order while their bytes fit the memory cap, and, ahead of the head, only while what
// they hold for it stays within a quarter of the cap.

// progressPossible guards the loop in Next: some file can still be started or advanced.
func (t *Table) progressPossible() bool {
	for i := t.head; i < len(t.files); i++ {
		f := t.files[i]
		if !f.done && (f.held == nil) {
			return true
		}
	}
	return false
}

func (t *Table) startFooter(f *fileState) error {
	o := scan.Options{FileSize: f.Size, FileKey: f.key, Metadata: true, TailSize: t.opts.TailSize, MemoryCap: t.opts.MemoryCap, MaxGap: t.opts.MaxGap}
	s, err := scan.NewCached(o, t.footers)
	if err != nil {
		return err
	}
	f.foot = s
	return nil
}

// advanceAll moves every file that is not waiting for bytes or for the files before it.
//
// Files after the head run ahead of it (their requests share the head's rounds, and they
// decode while the head waits for bytes), but each one that has decoded its first batch keeps
// that batch, its pushed bytes and its decoding state until the files before it end: a few
// times its compressed size. So once those files hold aheadBudget, no file after the head
// starts or advances its data session (its footer still does); the head always does. Without
// that bound, a table of many small files held them all at once (124 files of 0.85 MB, all
// columns: 1.1 GB live).
func (t *Table) advanceAll() error {
	var active int64
	ahead := t.aheadBytes()
	budget := t.opts.maxActiveBytes() / 4
	for i := t.head; i < len(t.files); i++ {
		f := t.files[i]
		if f.done {
			continue
		}
		if f.foot != nil && len(f.pending) == 0 {
			if err := t.stepFooter(f); err != nil {
				return errf.Errorf("%s: %w", f.Path, err)
			}
		}
		if f.fields == nil || t.table == nil {
			continue
		}
		if f.footOnly {
			f.done = true
			continue
		}
		if i != t.head && ahead >= budget && f.held == nil {
			continue
		}
		if f.data == nil {
			if t.tk != nil && !t.mayStart(f) {
				continue // with a limit, sorted files are visited one at a time (topk.go)
			}
			// Data sessions start in file order while the active files' bytes fit; the head
			// always runs, so a file larger than the bound is still read.
			if (t.sequential() && i != t.head) || (i != t.head && active+f.Size > t.opts.maxActiveBytes()) {
				break
			}
			if err := t.startData(f); err != nil {
				return errf.Errorf("%s: %w", f.Path, err)
			}
			if f.done {
				continue
			}
		}
		active += f.Size
		if len(f.pending) == 0 && f.held == nil {
			if err := t.stepData(f); err != nil {
				return errf.Errorf("%s: %w", f.Path, err)
			}
			if i != t.head && f.held != nil {
				ahead += heldBytes(f)
			}
		}
	}
	return nil
}

// aheadBytes is what the files after the head hold for it (advanceAll).
func (t *Table) aheadBytes() int64 {
	var n int64
	for i := t.head + 1; i < len(t.files); i++ {
		if f := t.files[i]; f.held != nil {
			n += heldBytes(f)
		}
	}
	return n
}

// heldBytes estimates what a file holding a batch keeps: the batch, about as much again in
// its readers' decoded values and its decompressed pages, and the file's bytes.
func heldBytes(f *fileState) int64 { return 3*int64(len(f.held.IPC)) + f.Size }
