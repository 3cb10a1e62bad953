// Package optimize rewrites Parquet files so that pqscan can skip most of them, and says what
// an existing file lacks.
//
//   - Rewrite reads a file through pqscan's own engine (package pqscan) and writes it again with
//     arrow-go's pqarrow writer: rows optionally sorted (externally, through sorted runs spilled
//     to temporary Arrow IPC files, when the input exceeds a memory cap), chosen row group and
//     page sizes, codec, bloom filters (given or chosen from distinct-count estimates), page
//     index and statistics always on, sorting columns recorded in the footer.
//   - Advise reads only a footer and lists what stops a reader from skipping: statistics that
//     cannot prune, row groups too large or too small, no page index, dictionary fallback,
//     bloom filter candidates, inexact or deprecated statistics.
//   - Measure runs a workload of WHERE predicates against a file with real scans through a
//     counting source and reports the bytes, requests and round trips each one fetched.
//
// Non-goals: keeping the input's physical encodings, field ids or key/value metadata (the
// output is a fresh file with the Arrow schema pqscan reads, stored as ARROW:schema);
// encrypted files. Native only: it imports arrow-go and must never be linked into the wasm
// module.
package optimize
