package tablescan

// ORDER BY over a table (Options.OrderBy). Every file runs the
// engine's own sorted scan (package scan, topk.go) for the best offset+limit rows of its own,
// with the table's columns mapped onto it; the table merges the files' rows and keeps the best
// offset+limit across files, in DuckDB's order (the files' order: keys, NULLS LAST unless
// NULLS FIRST, NaN above every number; ties by the file's place in the table, then by
// position in the file — what `ORDER BY keys, filename, file_row_number` gives).
//
// With a limit the files are visited in waves, best bound first: a file's bound is the
// best first key any of its rows may hold, from the table log's statistics (Delta minValues /
// maxValues; no footer needed) or else from its footer's row-group statistics (read for all
// files in one round, as for any scan). Before a file is started, a bound that cannot beat
// the table's k-th row so far skips it whole. A wave is 1 file, then 2, 4, … (the next ones
// by bound, started once the wave before is merged), so that the bound learned from the best
// files skips the rest while the round trips grow with the log of the files visited, not
// their number (the files of a wave run in lockstep). When every file's bound comes from the log,
// footers are read only for the files visited, so a skipped file costs no request at all. A
// file that is started gets the table's k-th row as a floor (scan.SetSortFloor): its own key
// pass skips every page or row group that cannot beat it before requesting it. Without a
// limit the files run together and every row is kept, within the memory cap.
//
// Sort keys are top-level columns of the table. A partition column is constant within a file:
// the file's scan sorts by the other terms only (or, with none, returns its first rows in
// position order) and the table takes the term's value from the file's partition values,
// which also bound the file exactly (no footer needed). A column a file lacks is constant in
// it too (the value it fills, else null), and is taken the same way.

import (
	"slices"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/variant"
)

// tableTopK is the state of a table's ORDER BY.
type tableTopK struct {
	terms []scan.OrderTerm
	k     int64    // offset+limit; 0: every row (a sort)
	rows  []tkRow  // the best k rows so far (all with k = 0), sorted once a file is merged
	files []tkFile // per file (index = file): its sorted rows, table-typed
	metas []*format.FileMetaData
	// lazy: every file's bound comes from the table log, so a footer is read only for the
	// file being visited.
	lazy bool
	// active are the files whose sorted scans run (with a limit: one wave, room files, room
	// doubling each wave).
	active map[*fileState]bool
	room   int
	bytes  int64 // memory held by the files' rows
	out    int   // rows of rows written
	done   bool
}

// tkFile is one file's sorted scan output, kept until the table writes its rows.
type tkFile struct {
	arrays []*arrowipc.Array
	n      int
	casts  []*column     // per term: the widening of its file column (nil: none)
	src    []int         // per term: its index among the file scan's terms, -1 for a partition or filled column
	fill   []*hive.Value // per term: the value of a column the file lacks and fills (File.Fill), else nil
}

// tkRow is one row of a file's sorted output: its keys, file and place in that output.
type tkRow struct {
	vals  []prune.Value
	nulls []bool
	file  int
	at    int
}

// setupTopK parses Options.OrderBy once the files are planned.
func (t *Table) setupTopK() error {
	o := &t.opts
	if o.Count || o.MinMax != "" {
		return errf.Errorf("%w: orderBy does not combine with count or minMax", ErrOptions)
	}
	terms, err := scan.ParseOrderBy(o.OrderBy)
	if err != nil {
		return err
	}
	tk := &tableTopK{terms: terms, files: make([]tkFile, len(t.files)), metas: make([]*format.FileMetaData, len(t.files)),
		active: map[*fileState]bool{}, room: 1}
	if o.Limit > 0 {
		tk.k = o.Offset + o.Limit
		tk.lazy = !o.UnionSchema
		for _, f := range t.files {
			b, ok := t.logBound(f, terms[0])
			if t.partTerm(terms[0]) < 0 && !f.done && (!ok || b.Unknown) {
				tk.lazy = false
			}
		}
	}
	t.tk = tk
	return nil
}

// partTerm is the partition column index of a term, or -1.
func (t *Table) partTerm(k scan.OrderTerm) int {
	if t.parts == nil {
		return -1
	}
	return t.parts.Column(k.Path)
}

// partKey is f's value of partition column p as a sort key.
func (t *Table) partKey(f *fileState, p int) (null bool, v prune.Value) {
	pv := t.parts.Values[f.idx][p]
	return pv.Null, pv.V
}

// logBound is f's bound from the table log's statistics, if it has any for the column.
func (t *Table) logBound(f *fileState, k scan.OrderTerm) (scan.SortBound, bool) {
	cs, ok := f.Stats[k.Path]
	typ, tok := t.opts.StatTypes[k.Path]
	if !ok || !tok || t.opts.NoPrune || slices.Contains(t.opts.Disable, scan.LevelStatistics) {
		return scan.SortBound{}, false
	}
	rows := f.Rows
	if rows <= 0 {
		rows = -1 // unknown
	}
	return scan.BoundOf(k, typ, cs, rows), true
}

// filledKey is the value every row of f holds in the table column name when f lacks the
// column: the value it fills (File.Fill), else null, as the table reads it; ok is false when
// f has the column, or while f's footer is unread.
func (t *Table) filledKey(f *fileState, name string) (v *hive.Value, ok bool) {
	if f.fields == nil {
		return nil, false
	}
	i := slices.IndexFunc(t.all, func(x arrowipc.Field) bool { return x.Name == name })
	if i < 0 {
		return nil, false
	}
	if j, err := sourceColumn(f.fields, i, name, &t.opts); err != nil || j >= 0 {
		return nil, false
	}
	if fv, has := f.Fill[name]; has {
		return &fv, true
	}
	return &hive.Value{Null: true}, true
}

// fileKey finds the file column that feeds the table column name, and its widening.
func (t *Table) fileKey(f *fileState, name string) (string, *column, error) {
	i := slices.IndexFunc(t.all, func(x arrowipc.Field) bool { return x.Name == name })
	if i < 0 {
		return "", nil, errf.Errorf("%w: orderBy: no column %q in the table", ErrOptions, name)
	}
	j, err := sourceColumn(f.fields, i, name, &t.opts)
	if err != nil {
		return "", nil, errf.Errorf("%s: %w", f.Path, err)
	}
	if j < 0 {
		return "", nil, errf.Errorf("%w: %s: orderBy %q: the file lacks the column (not supported over a dataset yet)", ErrUnsupported, f.Path, name)
	}
	ff, tf := f.fields[j], t.all[i]
	cast, ok := fitType(ff.Type, tf.Type, t.opts.ZonelessUTC)
	if !ok {
		return "", nil, errf.Errorf("%w: %s: column %q is %s in the file, %s in the table", ErrSchema, f.Path, name, typeName(ff.Type), typeName(tf.Type))
	}
	if !cast {
		return f.ownName(j), nil, nil
	}
	return f.ownName(j), &column{cast: true, from: ff.Type, field: tf}, nil
}

// bound is f's best possible first key (table-typed), or ok false while its footer is unread.
func (t *Table) bound(f *fileState) (b scan.SortBound, ok bool, err error) {
	k := t.tk.terms[0]
	if p := t.partTerm(k); p >= 0 {
		null, v := t.partKey(f, p) // every row of the file holds it
		return scan.SortBound{Null: null, V: v}, true, nil
	}
	if b, ok := t.logBound(f, k); ok && !b.Unknown {
		return b, true, nil
	}
	meta := t.tk.metas[f.idx]
	if meta == nil || t.all == nil {
		return scan.SortBound{}, false, nil
	}
	if v, ok := t.filledKey(f, k.Path); ok {
		return scan.SortBound{Null: v.Null, V: v.V}, true, nil // every row of the file holds it
	}
	if t.opts.NoPrune || slices.Contains(t.opts.Disable, scan.LevelStatistics) {
		return scan.SortBound{Unknown: true}, true, nil
	}
	name, c, err := t.fileKey(f, k.Path)
	if err != nil {
		return scan.SortBound{}, false, err
	}
	if b, err = scan.FileSortBound(meta, name, k); err != nil {
		return scan.SortBound{}, false, errf.Errorf("%s: %w", f.Path, err)
	}
	if c != nil && !b.Unknown && !b.Null && !b.Empty {
		if b.V, err = widenValue(b.V, c.from, c.field.Type); err != nil {
			return scan.SortBound{}, false, err
		}
	}
	return b, true, nil
}

// canBeat says whether a file with bound b may hold a row of the table's best k.
func (tk *tableTopK) canBeat(b scan.SortBound) bool {
	if b.Empty {
		return false
	}
	if tk.k == 0 || int64(len(tk.rows)) < tk.k || b.Unknown {
		return true
	}
	w := &tk.rows[len(tk.rows)-1]
	return scan.CmpSortKey(tk.terms[0], b.Null, b.V, w.nulls[0], w.vals[0]) <= 0
}

// pickFile chooses, with a limit and no file running, the next wave: the room best bounds
// among the files left, skipping (report: SkippedBy "top-k", TopKSkipped) every file whose
// bound cannot beat the table's k-th row. It waits (chooses none) while a footer it needs
// is unread.
func (t *Table) pickFile() error {
	tk := t.tk
	if tk.k == 0 || len(tk.active) > 0 {
		return nil
	}
	type cand struct {
		f *fileState
		b scan.SortBound
	}
	var cands []cand
	for _, f := range t.files {
		if f.done || f.data != nil {
			continue
		}
		b, ok, err := t.bound(f)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if !tk.canBeat(b) {
			f.done, f.skipped, f.foot, f.pending = true, "top-k", nil, nil
			t.report.Files[f.idx].SkippedBy = "top-k"
			t.report.TopKSkipped++
			continue
		}
		cands = append(cands, cand{f, b})
	}
	// sort.SliceStable, not slices.SortStableFunc: each instantiation of the latter is ~17 KB of the module.
	sort.SliceStable(cands, func(i, j int) bool { return scan.CmpSortBound(tk.terms[0], cands[i].b, cands[j].b) < 0 })
	for _, c := range cands[:min(tk.room, len(cands))] {
		tk.active[c.f] = true
	}
	tk.room *= 2
	return nil
}

// wantsFooter says whether f's footer is read now: always, unless every bound is the log's
// and f is not the file being visited.
func (t *Table) wantsFooter(f *fileState) bool { return !t.tk.lazy || t.tk.active[f] }

// mayStart says whether f's sorted scan may start: every file without a limit, else those of
// the wave pickFile chose.
func (t *Table) mayStart(f *fileState) bool { return t.tk.k == 0 || t.tk.active[f] }

// startSorted opens f's sorted scan: the table's terms on the file's columns, the best
// offset+limit rows of the file, its batches copied aside (not returned), and the table's
// k-th row so far as its floor.
func (t *Table) startSorted(f *fileState, o scan.Options, fs *fileShape) error {
	tk := t.tk
	tf := &tk.files[f.idx]
	var terms []string
	for _, k := range tk.terms {
		if t.partTerm(k) >= 0 {
			tf.casts, tf.src, tf.fill = append(tf.casts, nil), append(tf.src, -1), append(tf.fill, nil)
			continue
		}
		if v, ok := t.filledKey(f, k.Path); ok {
			tf.casts, tf.src, tf.fill = append(tf.casts, nil), append(tf.src, -1), append(tf.fill, v)
			continue
		}
		name, c, err := t.fileKey(f, k.Path)
		if err != nil {
			return err
		}
		if strings.Contains(name, `"`) {
			return errf.Errorf("%w: %s: orderBy %q: a quote in the name", ErrUnsupported, f.Path, name)
		}
		term := `"` + name + `"`
		if k.Desc {
			term += " DESC"
		}
		if k.NullsFirst {
			term += " NULLS FIRST"
		} else {
			term += " NULLS LAST"
		}
		tf.casts, tf.src, tf.fill = append(tf.casts, c), append(tf.src, len(terms)), append(tf.fill, nil)
		terms = append(terms, term)
	}
	o.OrderBy, o.Offset, o.Limit = strings.Join(terms, ", "), 0, tk.k
	s, err := scan.NewCached(o, t.footers)
	if err != nil {
		return err
	}
	s.SetDeleted(f.deleted)
	s.SetShaper(&fs.out, func(n int, in *arrowipc.Schema, cols []*arrowipc.Array) ([]*arrowipc.Array, error) {
		out, err := fs.shape(n, in, cols)
		if err != nil {
			return nil, err
		}
		if tf.arrays == nil {
			for i := range t.table {
				tf.arrays = append(tf.arrays, scan.NewArray(&t.table[i].Type))
			}
		}
		for i := range out {
			before := scan.ArrayBytes(tf.arrays[i])
			scan.AppendRows(tf.arrays[i], &t.table[i].Type, out[i], 0, n)
			tk.bytes += scan.ArrayBytes(tf.arrays[i]) - before
		}
		tf.n += n
		if tk.bytes > t.opts.maxActiveBytes() {
			return nil, errf.Errorf("%w: orderBy over a dataset: the sorted rows exceed the memory cap of %d bytes (add a limit or fewer columns)", scan.ErrMemoryCap, t.opts.maxActiveBytes())
		}
		return out, nil
	})
	if n := len(tk.rows); tk.k > 0 && int64(n) == tk.k {
		// The floor is the k-th row's key in the file's domain: the same values unless the
		// file's key is widened in a way that changes them (timestamp units, decimal scales,
		// integers to doubles or decimals, dates to timestamps).
		if c := tf.casts[0]; tf.src[0] == 0 && (c == nil || c.from.ID == c.field.Type.ID && (c.from.ID == arrowipc.Int || c.from.ID == arrowipc.Float)) {
			s.SetSortFloor(tk.rows[n-1].nulls[0], tk.rows[n-1].vals[0])
		}
	}
	f.data = s
	return nil
}

// mergeSorted takes f's finished sorted scan into the table's rows: its keys widened to the
// table's types, then the best k kept; files none of whose rows are kept are dropped.
func (t *Table) mergeSorted(f *fileState) error {
	tk := t.tk
	tf := &tk.files[f.idx]
	fvals, fnulls := f.data.SortedKeys() // nil when every term is a partition column
	if (fvals != nil || slices.Contains(tf.src, 0)) && len(fvals) != tf.n {
		return errf.Errorf("%w: the sorted scan returned %d rows for %d keys", scan.ErrInternal, tf.n, len(fvals))
	}
	for i := 0; i < tf.n; i++ {
		r := tkRow{vals: make([]prune.Value, len(tk.terms)), nulls: make([]bool, len(tk.terms)), file: f.idx, at: i}
		for j, k := range tk.terms {
			if v := tf.fill[j]; v != nil {
				r.nulls[j], r.vals[j] = v.Null, v.V
				continue
			}
			if tf.src[j] < 0 {
				r.nulls[j], r.vals[j] = t.partKey(f, t.partTerm(k))
				continue
			}
			r.vals[j], r.nulls[j] = fvals[i][tf.src[j]], fnulls[i][tf.src[j]]
			if c := tf.casts[j]; c != nil && !r.nulls[j] {
				v, err := widenValue(r.vals[j], c.from, c.field.Type)
				if err != nil {
					return err
				}
				r.vals[j] = v
			}
		}
		tk.rows = append(tk.rows, r)
	}
	sort.Slice(tk.rows, func(i, j int) bool { return tk.cmpRows(tk.rows[i], tk.rows[j]) < 0 })
	if tk.k > 0 && int64(len(tk.rows)) > tk.k {
		tk.rows = tk.rows[:tk.k]
		kept := make([]bool, len(tk.files))
		for _, r := range tk.rows {
			kept[r.file] = true
		}
		for i := range tk.files {
			// Only merged files: a file of the wave still running keeps its rows so far.
			if !kept[i] && tk.files[i].arrays != nil && !tk.active[t.files[i]] {
				for _, a := range tk.files[i].arrays {
					tk.bytes -= scan.ArrayBytes(a)
				}
				tk.files[i].arrays = nil
			}
		}
	}
	delete(tk.active, f)
	if !slices.ContainsFunc(tk.rows, func(r tkRow) bool { return r.file == f.idx }) && tf.arrays != nil {
		for _, a := range tf.arrays {
			tk.bytes -= scan.ArrayBytes(a)
		}
		tf.arrays = nil // none of its rows made the top k
	}
	return nil
}

// cmpRows orders rows: keys, then file, then place in the file's output (its position order
// among equal keys).
func (tk *tableTopK) cmpRows(a, b tkRow) int {
	for i, k := range tk.terms {
		if c := scan.CmpSortKey(k, a.nulls[i], a.vals[i], b.nulls[i], b.vals[i]); c != 0 {
			return c
		}
	}
	if a.file != b.file {
		return a.file - b.file
	}
	return a.at - b.at
}

// sortedStep writes the next batch of the table's sorted rows (after the offset); ok is
// false once all are written.
func (t *Table) sortedStep() (scan.Step, bool) {
	tk := t.tk
	if tk.out == 0 {
		tk.out = int(min(t.opts.Offset, int64(len(tk.rows))))
	}
	if tk.out >= len(tk.rows) {
		tk.done = true
		return scan.Step{}, false
	}
	batch := t.opts.BatchRows
	if batch <= 0 {
		batch = 65536 // scan.Options' default
	}
	rows := tk.rows[tk.out:min(len(tk.rows), tk.out+batch)]
	for _, r := range rows {
		if tk.files[r.file].arrays == nil {
			return t.fail(errf.Errorf("%w: the sorted rows of %s were dropped", scan.ErrInternal, t.files[r.file].Path)), true
		}
	}
	arrays := make([]*arrowipc.Array, len(t.table))
	for i := range t.table {
		a := scan.NewArray(&t.table[i].Type)
		for _, r := range rows {
			scan.AppendRows(a, &t.table[i].Type, tk.files[r.file].arrays[i], r.at, 1)
		}
		arrays[i] = a
	}
	if t.opts.VariantJSON {
		var err error
		if arrays, err = variant.JSONArrays(t.table, arrays); err != nil {
			return t.fail(errf.Errorf("%w: %w", decode.ErrValue, err)), true
		}
	}
	b, err := arrowipc.WriteStream(nil, &arrowipc.Schema{Fields: t.outFields()}, len(rows), arrays)
	if err != nil {
		return t.fail(errf.Errorf("%w: sorted batch: %v", scan.ErrInternal, err)), true
	}
	tk.out += len(rows)
	t.report.RowsReturned += int64(len(rows))
	return scan.Step{Kind: scan.Batch, IPC: b}, true
}
