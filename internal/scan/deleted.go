package scan

// Deleted rows (SetDeleted): rows of the file that a table format says do not exist (a Delta
// deletion vector). They never become candidates: each planned row group starts from its live
// rows instead of all of them, so the filter, offset, limit, count, min/max and sort only
// ever see live rows, and the row index still gives each row's position in the file. The
// shortcuts that answer from num_rows or chunk statistics take the deleted rows into account
// (counts subtract them; min/max does not answer a row group that has any; without a
// predicate the offset and limit slice the live rows, sliceUnfiltered).

import (
	"sort"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/prune"
)

// SetDeleted removes rows (positions in the file: sorted, disjoint, as prune.RowSelection's
// invariants) from the scan. Call it before the first Next; the scanner keeps rows. A row at
// or past the file's row count is ErrDeleted once the footer is read.
func (s *Scanner) SetDeleted(rows prune.RowSelection) {
	if len(rows) > 0 {
		s.deleted = rows
	}
}

// checkDeleted refuses deleted rows that are not a valid selection or lie past the file.
func (s *Scanner) checkDeleted() error {
	if s.deleted == nil {
		return nil
	}
	if !s.deleted.Valid() {
		return errf.Errorf("%w: deleted rows are not sorted and disjoint", ErrDeleted)
	}
	var total int64
	for i := range s.meta.RowGroups {
		total += s.meta.RowGroups[i].NumRows
	}
	if last := s.deleted[len(s.deleted)-1].End - 1; last >= total {
		return errf.Errorf("%w: row %d is deleted, and the file has %d rows", ErrDeleted, last, total)
	}
	return nil
}

// deletedAt returns the deleted rows of row group rg, relative to its first row.
func (s *Scanner) deletedAt(rg int) prune.RowSelection {
	if s.deleted == nil {
		return nil
	}
	a := s.rgStarts[rg]
	b := a + s.meta.RowGroups[rg].NumRows
	i := sort.Search(len(s.deleted), func(i int) bool { return s.deleted[i].End > a })
	var out prune.RowSelection
	for ; i < len(s.deleted) && s.deleted[i].Start < b; i++ {
		r := s.deleted[i]
		out = append(out, prune.RowRange{Start: max(r.Start, a) - a, End: min(r.End, b) - a})
	}
	return out
}

// deletedIn is the number of deleted rows in row group rg.
func (s *Scanner) deletedIn(rg int) int64 { return s.deletedAt(rg).Count() }

// liveRows is the selection of row group rg's rows that are not deleted.
func (s *Scanner) liveRows(rg int) prune.RowSelection {
	n := s.meta.RowGroups[rg].NumRows
	live := prune.SelectAll(n)
	if s.deleted != nil {
		live = s.deletedAt(rg).Complement(n)
	}
	return s.unitRows(rg, live)
}
