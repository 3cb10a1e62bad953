package prune

// MustMatch reports whether every row described by the statistics satisfies the predicate
// (is TRUE, not NULL): true proves it, so a reader may return those rows without evaluating
// the predicate on them (Polars' "no residual predicate"), and a count may take them from the
// row counts in metadata without reading a value. It is the dual of MayMatch over the
// same evaluator: the outcome sets are over-approximations, so a set holding TRUE alone means
// no row can be FALSE or NULL. Missing statistics, a possible null, a NaN, an inexact bound
// where an exact one is needed: any of them keeps the answer false.
func (b *Bound) MustMatch(stats func(path string) (ColStats, bool)) bool {
	return b.statsOutcomes(stats) == sTrue
}
