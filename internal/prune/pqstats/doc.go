// Package pqstats turns Parquet statistics (a column chunk's Statistics, a ColumnIndex entry)
// into prune.ColStats, applying the rules for when they may be trusted. It is the one place
// that decides whether a bound from the file may prune: the evaluator in package prune assumes
// the bounds it is given are right, so every safety rule lives here (parquet-format
// "Statistics", "Sort order" and "ColumnOrder"; the writer-bug table format.WriterBugs):
//
//   - min_value/max_value only with a type-defined column order (or no column_orders at all:
//     older writers' min_value/max_value still follow the type's order);
//   - the deprecated min/max only for signed integers, dates, times, timestamps and floats,
//     whose order every writer got right, and only when min_value/max_value are both absent;
//   - an absent is_*_value_exact is exact for fixed-width types and inexact for byte arrays;
//     column index bounds of byte arrays and decimals are never exact (they may be truncated);
//   - under IEEE_754_TOTAL_ORDER (FLOAT, DOUBLE, FLOAT16) min/max are exact numeric bounds
//     of the non-NaN values (the totalOrder's -0 < +0 is coarsened to -0 = +0), NaN bounds
//     mean every non-null value is NaN (prune.ColStats.OnlyNaN), nan_count is passed on;
//     the order on any other type bounds nothing;
//   - FLOAT16 (FIXED_LEN_BYTE_ARRAY(2)) bounds are half-precision floats; its deprecated
//     min/max (a signed byte-wise order) are never used;
//   - INT96 statistics are ignored (no defined sort order);
//   - a leaf whose annotation the reader does not apply (Column.Unordered) has no bounds: the
//     writer ordered them by a type the values are not read as;
//   - known writer bugs (keyed on created_by) drop the bounds, or the whole statistics;
//   - null counts and NaN counts are passed on as recorded (-1 when absent); NaN handling is
//     the evaluator's (a float bound never excludes NaN rows it cannot see).
//
// It is separate from package prune so that prune stays standard-library only (it is also the
// dataset layer's evaluator over Delta and Hive statistics, which have no Thrift structs).
// The functions are pure: no I/O, no state; safe for concurrent use.
package pqstats
