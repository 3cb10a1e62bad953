package tablescan

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/variant"
)

// Schema resolution: which file column feeds each table column, and how
// the table schema is formed when the host gives none.
//
// Columns are matched by name (Impala's default; with FoldCase a differently cased name
// matches when no exact one does) or, with Options.ByPosition, the i-th table column is the
// file's i-th column whatever its name (Impala's PARQUET_FALLBACK_SCHEMA_RESOLUTION=position,
// for files whose writer renamed columns). A table column the file lacks reads as nulls; a
// file column of a narrower type is widened (widen.go); anything else is ErrSchema naming the
// file and the column. Types are compared on the Arrow types the decoder produces, because
// those are what the shaper converts: a widening the decoder's output cannot be cast exactly
// is refused, never approximated.

// sourceColumn returns the index of the file column that feeds table column pos (its index in
// the whole table schema) named name, or -1 when the file lacks it.
func sourceColumn(fileFields []arrowipc.Field, pos int, name string, o *Options) (int, error) {
	if o.ByPosition {
		if pos < len(fileFields) {
			return pos, nil
		}
		return -1, nil
	}
	for i, f := range fileFields {
		if f.Name == name {
			return i, nil
		}
	}
	if !o.FoldCase {
		return -1, nil
	}
	found := -1
	for i, f := range fileFields {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return -1, errf.Errorf("%w: column %q matches both %q and %q ignoring case", ErrSchema, name, fileFields[found].Name, f.Name)
			}
			found = i
		}
	}
	return found, nil
}

// fitType checks that a file column of type from can be read as a table column of type to:
// cast reports whether its values need converting. zonelessUTC is Options.ZonelessUTC.
func fitType(from, to arrowipc.DataType, zonelessUTC bool) (cast bool, ok bool) {
	switch {
	case sameType(from, to):
		return false, true
	case zonelessUTC && from.ID == arrowipc.Timestamp && from.TZ == "" && to.ID == arrowipc.Timestamp && to.TZ != "" && from.Unit == to.Unit:
		// The same microseconds since the epoch, labelled with the table's zone.
		return false, true
	case sameType(to, variant.ArrowType) && variant.IsGroup(from):
		// A table's variant column over a file whose writer left out the VARIANT
		// annotation (Delta and Iceberg writers may): the file's group, shredded or
		// not, unshredded into the canonical form (widen).
		return true, true
	case from.ID == to.ID && !from.Dictionary && !to.Dictionary && (from.ID == arrowipc.Struct || from.ID == arrowipc.List || from.ID == arrowipc.Map):
		return fitNested(from, to, zonelessUTC)
	case widens(from, to):
		return true, true
	}
	return false, false
}

// unionPending says the table schema waits for every surviving file's footer (a union).
func (t *Table) unionPending() bool {
	return t.opts.UnionSchema && t.opts.Table == nil && t.table == nil
}

// footersRead says every file not skipped before its footer has its schema.
func (t *Table) footersRead() bool {
	for _, f := range t.files {
		if f.skipped == "" && f.fields == nil {
			return false
		}
	}
	return true
}

// unionFields is the table schema of files read with Options.UnionSchema and no host schema:
// the first file's columns, then every column a later file adds, in the order first seen
// (by name, or by position: a longer file adds its trailing columns), each typed by the
// widest of its files' types, which must widen into one another (else ErrSchema naming the
// file and the column). Added columns are nullable: the files without them read nulls.
func unionFields(files []*fileState, o *Options) ([]arrowipc.Field, error) {
	var table []arrowipc.Field
	for n, f := range files {
		if n == 0 {
			table = append(table, f.fields...)
			continue
		}
		for j, ff := range f.fields {
			i := j
			if !o.ByPosition {
				i = -1
				for k := range table {
					if table[k].Name == ff.Name || (o.FoldCase && strings.EqualFold(table[k].Name, ff.Name)) {
						i = k
						break
					}
				}
			}
			if i < 0 || i >= len(table) {
				ff.Nullable = true
				table = append(table, ff)
				continue
			}
			tf := &table[i]
			if _, ok := fitType(ff.Type, tf.Type, false); ok {
				tf.Nullable = tf.Nullable || ff.Nullable
				continue
			}
			if _, ok := fitType(tf.Type, ff.Type, false); ok {
				tf.Type, tf.Nullable = ff.Type, tf.Nullable || ff.Nullable
				continue
			}
			return nil, errf.Errorf("%w: %s: column %q is %s, earlier files have %s", ErrSchema, f.Path, ff.Name, typeName(ff.Type), typeName(tf.Type))
		}
	}
	return table, nil
}

// fileWhere is the residual predicate for file f's scan (filewhere.go): "" when every row
// matches, any=false when none can. Each column it names is resolved like a projected one,
// so an incompatible predicate column is the same error.
func (t *Table) fileWhere(f *fileState) (where string, any bool, err error) {
	if t.where.resExpr == nil || f.allMatch {
		return "", true, nil
	}
	name := map[string]string{}
	mode := map[string]litMode{}
	var fill map[string]filled
	for _, c := range t.where.fileCols {
		top := c
		pos := slices.IndexFunc(t.all, func(x arrowipc.Field) bool { return x.Name == top })
		if pos < 0 {
			if i := strings.IndexByte(c, '.'); i > 0 {
				top = c[:i]
				pos = slices.IndexFunc(t.all, func(x arrowipc.Field) bool { return x.Name == top })
			}
		}
		if pos < 0 {
			// Not a table column: the file's scan reports it (as for a single file).
			name[top] = top
			continue
		}
		j, err := sourceColumn(f.fields, pos, top, &t.opts)
		if err != nil {
			return "", false, errf.Errorf("%s: %w", f.Path, err)
		}
		if j < 0 {
			name[top] = ""
			if v, ok := f.Fill[top]; ok && c == top {
				if fill == nil {
					fill = map[string]filled{}
				}
				fill[top] = filled{t: t.opts.StatTypes[top], v: v}
			}
			continue
		}
		ff, tf := f.fields[j], t.all[pos]
		if _, ok := fitType(ff.Type, tf.Type, t.opts.ZonelessUTC); !ok {
			return "", false, errf.Errorf("%w: %s: column %q is %s in the file, %s in the table", ErrSchema, f.Path, tf.Name, typeName(ff.Type), typeName(tf.Type))
		}
		name[top] = f.ownName(j)
		mode[c] = leafMode(ff.Type, tf.Type, c[len(top):])
		if f.own != nil && c != top {
			// The struct steps below the column go by the file's own names too.
			name[c] = ""
			if suffix, ok := fileSuffix(ff.Type, f.own[j].Type, tf.Type, c[len(top):]); ok {
				name[c] = name[top] + suffix
			}
		}
	}
	for _, p := range t.where.partCols {
		// Holds the file's partition value in every row, as a column the file fills.
		c := t.parts.Column(p)
		name[p] = ""
		if fill == nil {
			fill = map[string]filled{}
		}
		fill[p] = filled{t: t.parts.Columns[c].Type, v: t.parts.Values[f.idx][c]}
	}
	where, any, err = fileWhere(t.where.resExpr, name, mode, fill)
	if err != nil {
		return "", false, errf.Errorf("%s: %w", f.Path, err)
	}
	return where, any, nil
}

// leafMode is how literals compared with the field at path (".a.b" through structs, "" for
// the column itself) of a file column of type from, table type to, are rewritten.
func leafMode(from, to arrowipc.DataType, path string) litMode {
	for _, step := range strings.Split(path, ".")[1:] {
		if from.ID != arrowipc.Struct || to.ID != arrowipc.Struct {
			return litExact
		}
		i := slices.IndexFunc(to.Fields, func(f arrowipc.Field) bool { return f.Name == step })
		j := fieldIndex(from.Fields, step)
		if i < 0 || j < 0 {
			return litExact // the file's scan reports what it lacks
		}
		from, to = from.Fields[j].Type, to.Fields[i].Type
	}
	switch {
	case to.ID != arrowipc.Float && to.ID != arrowipc.Timestamp, from.ID == to.ID && from.ID != arrowipc.Float:
		return litExact
	case from.ID == arrowipc.Float && from.BitWidth == 32 && to.BitWidth == 64:
		return litFloat32
	case from.ID == arrowipc.Int && to.ID == arrowipc.Float:
		return litDouble
	case from.ID == arrowipc.Date32 && to.ID == arrowipc.Timestamp && to.TZ == "":
		return litWallClock
	}
	return litExact
}

// setTable fixes the table schema from the first file read (then the partition columns), the
// union of the files read (Options.UnionSchema), or Options.Table (f may then be nil), and
// the projection.
func (t *Table) setTable(f *fileState) error {
	var all []arrowipc.Field
	switch {
	case t.opts.Table != nil:
		all = t.opts.Table
		if ri := t.opts.RowIndex; ri != "" && !slices.ContainsFunc(all, func(x arrowipc.Field) bool { return x.Name == ri }) {
			all = append([]arrowipc.Field{rowIndexField(ri)}, all...)
		}
	case t.opts.UnionSchema:
		var read []*fileState
		for _, g := range t.files {
			if g.fields != nil {
				read = append(read, g)
			}
		}
		var err error
		if all, err = unionFields(read, &t.opts); err != nil {
			return err
		}
	default:
		all = slices.Clone(f.fields)
	}
	if t.opts.Table == nil {
		// Any later file may lack a column (it then reads as nulls), so no column of a table
		// formed from its files is required.
		for i := range all {
			all[i].Nullable = true
		}
		if t.parts != nil {
			for _, c := range t.parts.Columns {
				all = append(all, partitionField(c))
			}
		}
	}
	t.all = all
	want := t.opts.Columns
	if t.opts.MinMax != "" {
		want = []string{t.opts.MinMax} // the one column each file's min/max reads
	}
	if ri := t.opts.RowIndex; ri != "" && len(want) > 0 && !slices.Contains(want, ri) {
		want = append([]string{ri}, want...) // as in a file's scan: first unless placed
	}
	if len(want) == 0 {
		t.table = all
		t.proj = make([]int, len(all))
		for i := range all {
			t.proj[i] = i
		}
		if t.parts != nil {
			t.nPart = len(t.parts.Columns)
		}
		t.unmapOutput()
		return nil
	}
	var fileCols, partCols []arrowipc.Field
	var fileIdx, partIdx []int
	for _, name := range want {
		i := slices.IndexFunc(all, func(x arrowipc.Field) bool { return x.Name == name })
		if i < 0 {
			return errf.Errorf("%w: no column %q in the table (dotted paths to nested fields are not supported over a table yet)", ErrUnsupported, name)
		}
		if t.parts != nil && t.parts.Column(name) >= 0 {
			partCols, partIdx = append(partCols, all[i]), append(partIdx, i)
		} else {
			fileCols, fileIdx = append(fileCols, all[i]), append(fileIdx, i)
		}
	}
	t.proj = append(fileIdx, partIdx...)
	if len(partCols) > 0 && len(fileCols) > 0 && !slices.Equal(want, append(fieldNames(fileCols), fieldNames(partCols)...)) {
		// Output order is file columns, then partition columns (shape.go); a projection that
		// interleaves them would be returned reordered, so it is refused.
		return errf.Errorf("%w: list partition columns after the file columns in Columns", ErrUnsupported)
	}
	t.table = append(fileCols, partCols...)
	t.nPart = len(partCols)
	t.unmapOutput()
	return nil
}
