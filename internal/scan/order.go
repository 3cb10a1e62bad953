package scan

// Predicate order. A WHERE that is an AND of conjuncts over different
// columns is evaluated one conjunct group at a time, and a later group's columns are decoded
// only for the rows that passed the earlier ones (their readers get those rows as their
// selection, so runs of failed rows are skipped inside pages too). The order is chosen per
// row group: the group estimated to remove the most candidate rows per byte of its columns
// goes first, which is the classic rule for independent filters (sort by
// cost / (1 - pass fraction) ascending).
//
// The rule, per row group, for each group of conjuncts (conjuncts sharing a column form one
// group; the row index alone costs nothing):
//   - pass fraction (estimate.go): for a group over one column, from the min/max of each
//     page holding candidate rows (column index) or of the chunk (statistics): the range is
//     cut into equal buckets (one per value for narrow integer ranges) and the share of
//     buckets the group may match is the page's share of passing rows (values spread
//     uniformly), weighted by the page's candidate rows; over bounds that cannot be cut
//     (strings, booleans) 0 or 1 as the statistics decide; 1 (no evidence that it removes
//     rows) for a group over several columns or without statistics;
//   - cost: the compressed bytes of its columns' pages over the candidate rows (at least 1);
//   - rank = (1 - pass fraction) / cost, highest first; equal ranks keep the written order,
//     so without any estimate the written order is the evaluation order.
// The order is reported per row group (RowGroupReport.PredicateOrder).

import (
	"slices"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/prune"
)

// stage is one group of AND-ed conjuncts, evaluated together.
type stage struct {
	bound *prune.Bound
	paths []string // file columns (not the row index)
	name  string   // for the report: the columns, joined by ","
}

// splitStages cuts the predicate e (bound as p) into stages: the top-level AND's conjuncts,
// grouped when they share a column. One stage (the whole predicate) when it is not an AND.
func splitStages(e prune.Expr, p *predicate, lookup func(string) (prune.ColumnType, bool)) ([]stage, error) {
	conj := flattenAnd(e, nil)
	if len(conj) < 2 {
		return []stage{p.wholeStage()}, nil
	}
	type group struct {
		exprs []prune.Expr
		cols  []string
	}
	var groups []*group
	for _, c := range conj {
		b, err := prune.Bind(c, lookup)
		if err != nil {
			return nil, err
		}
		cols := b.Columns()
		var into *group
		for k := 0; k < len(groups); k++ {
			g := groups[k]
			if !shares(g.cols, cols) {
				continue
			}
			if into == nil {
				into = g
				continue
			}
			// c joins two groups: merge the later into the earlier.
			into.exprs, into.cols = append(into.exprs, g.exprs...), append(into.cols, g.cols...)
			groups = slices.Delete(groups, k, k+1)
			k--
		}
		if into == nil {
			into = &group{}
			groups = append(groups, into)
		}
		into.exprs, into.cols = append(into.exprs, c), append(into.cols, cols...)
	}
	if len(groups) < 2 {
		return []stage{p.wholeStage()}, nil
	}
	stages := make([]stage, 0, len(groups))
	for _, g := range groups {
		e := g.exprs[0]
		if len(g.exprs) > 1 {
			e = &prune.And{Args: g.exprs}
		}
		b, err := prune.Bind(e, lookup)
		if err != nil {
			return nil, err
		}
		stages = append(stages, p.stageOf(b))
	}
	return stages, nil
}

func flattenAnd(e prune.Expr, out []prune.Expr) []prune.Expr {
	if a, ok := e.(*prune.And); ok {
		for _, x := range a.Args {
			out = flattenAnd(x, out)
		}
		return out
	}
	return append(out, e)
}

func shares(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func (p *predicate) wholeStage() stage { return p.stageOf(p.bound) }

func (p *predicate) stageOf(b *prune.Bound) stage {
	st := stage{bound: b}
	var names []string
	for _, path := range b.Columns() {
		names = append(names, path)
		if path != p.rowIndex {
			st.paths = append(st.paths, path)
		}
	}
	st.name = strings.Join(names, ",")
	return st
}

// stageOrder returns the order in which row group g evaluates the predicate's stages over
// its exact candidate rows (the rule above).
func (s *Scanner) stageOrder(g *rgState, exact prune.RowSelection) []int {
	stages := s.pred.stages
	order := make([]int, len(stages))
	for i := range order {
		order[i] = i
	}
	if len(stages) < 2 {
		return order
	}
	rank := make([]float64, len(stages))
	total := float64(max(exact.Count(), 1))
	for i, st := range stages {
		var bytes int64 = 1
		for _, path := range st.paths {
			if cf, err := s.fetchFor(g, s.pred.leaf[path], exact); err == nil {
				bytes += cf.bytes()
			}
		}
		rank[i] = (1 - s.passFraction(g, st, exact)/total) / float64(bytes)
	}
	// sort.SliceStable, not slices.SortStableFunc: each instantiation of the latter is ~17 KB
	// of the module.
	sort.SliceStable(order, func(i, j int) bool { return rank[order[i]] > rank[order[j]] })
	return order
}

// leavesOf lists the distinct leaf columns behind paths.
func (p *predicate) leavesOf(paths []string) []*decode.Column {
	var leaves []*decode.Column
	for _, path := range paths {
		if l := p.leaf[path]; !slices.Contains(leaves, l) {
			leaves = append(leaves, l)
		}
	}
	return leaves
}
