package prune

import (
	"strconv"

	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// String renders the bound predicate after coercion, for EXPLAIN output and tests, e.g.
// "x >= 3 AND d <= DATE '2024-01-01'". Folded comparisons print as TRUE(x) or FALSE(x):
// that value for non-null x, NULL for null x. Integer-domain values print in column units
// (decimals unscaled, timestamps as integers). The text is not meant to be parsed.
func (b *Bound) String() string { return b.render(b.root) }

func (b *Bound) render(nd *bnode) string {
	switch nd.op {
	case bAnd, bOr:
		sep := " AND "
		if nd.op == bOr {
			sep = " OR "
		}
		parts := make([]string, len(nd.kids))
		for i, k := range nd.kids {
			parts[i] = b.render(k)
			if k.op == bAnd || k.op == bOr {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		return strings.Join(parts, sep)
	case bNot:
		return "NOT (" + b.render(nd.kids[0]) + ")"
	}
	c := b.cols[nd.col]
	col := quotePath(c.path)
	switch nd.op {
	case bIsNull:
		return col + " IS NULL"
	case bNotNull:
		return col + " IS NOT NULL"
	case bConst:
		if nd.konst {
			return "TRUE(" + col + ")"
		}
		return "FALSE(" + col + ")"
	case bCmp:
		return col + " " + string(nd.cmp) + " " + formatValue(nd.val)
	case bCols:
		return col + " " + string(nd.cmp) + " " + quotePath(b.cols[nd.col2].path)
	case bIn:
		parts := make([]string, len(nd.vals))
		for i, v := range nd.vals {
			parts[i] = formatValue(v)
		}
		if nd.nanLit {
			parts = append(parts, "NaN")
		}
		return col + " IN (" + strings.Join(parts, ", ") + ")"
	case bLike:
		return col + " " + likeWord(nd.fold) + " " + quoteString(string(nd.pat))
	case bSpatial:
		rel := map[geo.Rel]string{geo.Intersects: "intersects", geo.BBox: "bbox", geo.Within: "within"}[nd.rel]
		return (&Spatial{Rel: rel, Col: c.path, Env: nd.env}).String()
	}
	return "?"
}

func likeWord(fold bool) string {
	if fold {
		return "ILIKE"
	}
	return "LIKE"
}

// formatValue prints a Value for humans.
func formatValue(v Value) string {
	switch v.Kind {
	case Bool:
		if v.I != 0 {
			return "TRUE"
		}
		return "FALSE"
	case Uint:
		return strconv.FormatUint(v.U, 10)
	case Float:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case Bytes:
		return quoteString(string(v.B))
	case Decimal:
		if v.B != nil {
			return exactnum.FromTwos(v.B).String()
		}
		return strconv.FormatInt(v.I, 10)
	case Date:
		return "DATE '" + time.Unix(v.I*86400, 0).UTC().Format("2006-01-02") + "'"
	}
	return strconv.FormatInt(v.I, 10)
}
