package tablescan

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/prune"
)

// where is a table predicate split at its top-level ANDs: the conjuncts that name only
// partition columns are decided per file before any footer is read (exactly, from the file's
// partition values, so they never reach the file's scan: Polars' "no residual predicate"),
// the others are the residual every file's scan evaluates. A conjunct that names partition
// and file columns together (under an OR or a NOT) is in the residual, and each file's
// rewrite (fileWhere) puts the file's partition values in place of its partition columns: a
// file where it folds to FALSE is not scanned, and its scan evaluates only what is left.
type where struct {
	part     []*prune.Bound
	residual string     // the other conjuncts joined with AND; "" when none
	resExpr  prune.Expr // the same as a tree (nil when none), rewritten per file (filewhere.go)
	fileCols []string   // file columns the residual names
	partCols []string   // partition columns the residual names
}

func splitWhere(text string, parts *hive.Partitions) (*where, error) {
	w := &where{}
	if strings.TrimSpace(text) == "" {
		return w, nil
	}
	e, err := prune.Parse(text)
	if err != nil {
		return nil, err
	}
	conj := []prune.Expr{e}
	if a, ok := e.(*prune.And); ok {
		conj = a.Args
	}
	isPart := func(c string) bool { return parts != nil && parts.Column(c) >= 0 }
	var rest []string
	var restExpr []prune.Expr
	for _, c := range conj {
		cols := prune.Columns(c)
		np := 0
		for _, col := range cols {
			if isPart(col) {
				np++
			}
		}
		switch {
		case np == 0:
			rest = append(rest, c.String())
			restExpr = append(restExpr, c)
			w.fileCols = append(w.fileCols, cols...)
		case np == len(cols):
			b, err := prune.Bind(c, func(path string) (prune.ColumnType, bool) {
				i := parts.Column(path)
				if i < 0 {
					return prune.ColumnType{}, false
				}
				return parts.Columns[i].Type, true
			})
			if err != nil {
				return nil, err
			}
			w.part = append(w.part, b)
		default:
			rest = append(rest, c.String())
			restExpr = append(restExpr, c)
			for _, col := range cols {
				if !isPart(col) {
					w.fileCols = append(w.fileCols, col)
				} else if !slices.Contains(w.partCols, col) {
					w.partCols = append(w.partCols, col)
				}
			}
		}
	}
	if len(rest) == 1 {
		w.residual, w.resExpr = rest[0], restExpr[0]
	} else if len(rest) > 1 {
		w.residual = "(" + strings.Join(rest, ") AND (") + ")"
		w.resExpr = &prune.And{Args: restExpr}
	}
	return w, nil
}

// fileMatches evaluates the partition conjuncts over file i's partition values (one row): false
// means no row of the file can match. SQL's three-valued logic applies (a null partition value
// makes a comparison unknown, so the file does not match), as it would row by row.
func (w *where) fileMatches(parts *hive.Partitions, i int) (bool, error) {
	for _, b := range w.part {
		vecs := map[string]*prune.Vector{}
		for _, path := range b.Columns() {
			c := parts.Column(path)
			vecs[path] = valueVector(parts.Columns[c].Type, parts.Values[i][c])
		}
		sel := []bool{false}
		if err := b.Filter(func(path string) *prune.Vector { return vecs[path] }, 1, sel); err != nil {
			return false, err
		}
		if !sel[0] {
			return false, nil
		}
	}
	return true, nil
}

// valueVector is a one-row Vector holding v.
func valueVector(t prune.ColumnType, v hive.Value) *prune.Vector {
	vec := &prune.Vector{Kind: t.Kind, Len: 1}
	if v.Null {
		vec.Valid = []byte{0}
	}
	switch t.Kind {
	case prune.Bytes:
		vec.Offsets = []int32{0, int32(len(v.V.B))}
		vec.Data = v.V.B
	case prune.Float:
		vec.F64 = []float64{v.V.F}
	case prune.Uint:
		vec.U64 = []uint64{v.V.U}
	case prune.Bool:
		vec.Bools = []byte{byte(v.V.I & 1)}
	case prune.Decimal:
		if v.V.B != nil { // beyond int64: big-endian two's complement bytes
			vec.Offsets = []int32{0, int32(len(v.V.B))}
			vec.Data = v.V.B
			break
		}
		vec.I64 = []int64{v.V.I}
	default: // Int, Date, Timestamp, Time: int64 storage
		vec.I64 = []int64{v.V.I}
	}
	return vec
}
