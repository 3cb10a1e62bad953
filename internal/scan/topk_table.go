package scan

// What a table (package tablescan) needs to run ORDER BY across its files with each file's
// own sorted scan: the parsed terms and their order, the best key a file's footer allows
// (to visit files best first and skip those that cannot make the top rows), a floor (the
// table's k-th row so far: units of the file's key pass that cannot beat it are skipped
// before their bytes are requested, as by the file's own heap), and the keys of the rows a
// file's scan returned, in the order it returned them, for the table's merge.

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// OrderTerm is one ORDER BY term (Options.OrderBy).
type OrderTerm struct {
	Path             string
	Desc, NullsFirst bool
}

// ParseOrderBy parses Options.OrderBy as a file's scan does.
func ParseOrderBy(s string) ([]OrderTerm, error) {
	keys, err := parseOrderBy(s)
	if err != nil {
		return nil, err
	}
	out := make([]OrderTerm, len(keys))
	for i, k := range keys {
		out[i] = OrderTerm{Path: k.path, Desc: k.desc, NullsFirst: k.nullsFirst}
	}
	return out, nil
}

func (k OrderTerm) key() orderKey {
	return orderKey{path: k.Path, desc: k.Desc, nullsFirst: k.NullsFirst}
}

// CmpSortKey orders one term's values (an and bn: null) as a sorted scan does: negative when
// a comes first.
func CmpSortKey(k OrderTerm, an bool, a prune.Value, bn bool, b prune.Value) int {
	return cmpKey(k.key(), an, a, bn, b)
}

// SortBound is the best first key some row of a file may hold: Unknown (any), Null, or V;
// Empty when the file has no row.
type SortBound struct {
	Unknown, Null, Empty bool
	V                    prune.Value
}

// BoundOf is the best first key of rows rows with statistics cs (a file's, from a table
// log), under the term k on a column of type t; a float DESC key is unknown unless cs
// proves no NaN (NaN ranks first there).
func BoundOf(k OrderTerm, t prune.ColumnType, cs prune.ColStats, rows int64) SortBound {
	tk := &topk{keys: []orderKey{k.key()}}
	tk.keys[0].typ = t
	b := tk.unitBound(cs, rows, false)
	return SortBound{Unknown: b.unknown, Null: b.null, V: b.v}
}

// CmpSortBound orders two bounds of term k best first (unknown first: it may hold anything).
func CmpSortBound(k OrderTerm, a, b SortBound) int {
	tk := &topk{keys: []orderKey{k.key()}}
	return tk.cmpBound(ubound{unknown: a.Unknown, null: a.Null, v: a.V}, ubound{unknown: b.Unknown, null: b.Null, v: b.V})
}

// FileSortBound is the best first key a row of the file whose footer is meta may hold, from
// its row groups' chunk statistics (trusted by the pqstats rules), for the term k on the
// file's top-level column col. A predicate only removes rows, so the bound holds for any.
func FileSortBound(meta *format.FileMetaData, col string, k OrderTerm) (SortBound, error) {
	schema, err := decode.BuildSchema(meta.Schema)
	if err != nil {
		return SortBound{}, err
	}
	var c *decode.Column
	for _, top := range schema.Columns {
		if top.Field.Name == col && top.Kind == decode.KindLeaf {
			c = top
		}
	}
	if c == nil {
		return SortBound{}, errf.Errorf("%w: orderBy %q: not a top-level primitive column", ErrOptions, col)
	}
	t, ok := pruneType(c)
	if !ok {
		return SortBound{}, errf.Errorf("%w: orderBy %q: its type cannot be ordered", ErrOptions, col)
	}
	var w format.WriterVersion
	if meta.CreatedBy != nil {
		w = format.ParseCreatedBy(*meta.CreatedBy)
	}
	tk := &topk{keys: []orderKey{k.key()}}
	tk.keys[0].typ = t
	pc := statsOf(c, t, w, meta.ColumnOrders)
	best, any := ubound{}, false
	for i := range meta.RowGroups {
		rg := &meta.RowGroups[i]
		if rg.NumRows == 0 {
			continue
		}
		b := tk.unitBound(pqstats.Chunk(rg.Columns[c.Node.Leaf].MetaData, pc), rg.NumRows, false)
		if !any || tk.cmpBound(b, best) < 0 {
			best, any = b, true
		}
	}
	if !any {
		return SortBound{Empty: true}, nil
	}
	return SortBound{Unknown: best.unknown, Null: best.null, V: best.v}, nil
}

// SetSortFloor gives a sorted scan with a limit the table's k-th row's first key (null, or
// v in the file column's domain): units of the key pass whose best key is worse are skipped
// (Report.TopKSkipped) before their bytes are requested. Call it before the first Next.
func (s *Scanner) SetSortFloor(null bool, v prune.Value) {
	s.floor = &ubound{null: null, v: v}
}

// SortedKeys are the sort keys of the rows a sorted scan returned, in the order it returned
// them (one slice of values and one of null flags per row), once it is done.
func (s *Scanner) SortedKeys() (vals [][]prune.Value, nulls [][]bool) {
	if s.tk == nil {
		return nil, nil
	}
	for _, r := range s.tk.rows {
		vals, nulls = append(vals, r.vals), append(nulls, r.null)
	}
	return vals, nulls
}

// NewArray is an empty array of type t that AppendRows grows (a table's merged rows).
func NewArray(t *arrowipc.DataType) *arrowipc.Array { return newArray(t) }

// AppendRows appends rows [start, start+n) of src, an array of type t, to dst.
func AppendRows(dst *arrowipc.Array, t *arrowipc.DataType, src *arrowipc.Array, start, n int) {
	appendRows(dst, t, src, start, n)
}

// ArrayBytes is the memory a's buffers hold, for a table's memory cap.
func ArrayBytes(a *arrowipc.Array) int64 { return arrayBytes(a) }
