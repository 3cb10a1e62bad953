// Package prune is pqscan's predicate machinery: an expression tree with a SQL WHERE-subset
// parser and a JSON wire form, binding to a schema with exact literal coercion, and one bound
// predicate evaluated over several domains so that every level of skipping shares one
// semantics (Polars' idea, DESIGN.md §3):
//
//   - rows: Bound.Filter, SQL three-valued logic over typed column Vectors;
//   - statistics: Bound.MayMatch over row-group or page ColStats;
//   - dictionaries: Bound.MayMatchDict;
//   - Bloom filters: Bound.MayMatchBloom with XXH64 and SBBFContains;
//   - page index: RowSelection, FromPages and PagesFor.
//
// Safety contract: every MayMatch* returning false proves that Filter would select no row of
// that data; "unknown" (missing, inexact, NaN, malformed or mismatched information) always
// answers true. The evaluators over statistics, dictionaries and Bloom filters compute for
// each node the set of truth values (FALSE, NULL, TRUE) that some row may produce, so NOT and
// nulls need no special pushdown rules.
//
// Non-goals: column-to-column comparisons, arithmetic, functions, a NULL literal, LIKE escape
// characters, and repeated (list) columns: evaluators assume one value or null per row.
// Spatial predicates (ST_Intersects, ST_Within, && with an envelope) test WKB geometries with
// package geo, which is pure and standard library only too.
//
// The package is pure (no I/O, standard library only) and builds for GOOS=wasip1.
package prune
