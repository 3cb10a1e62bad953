// Package conformance holds the engine's conformance and oracle tests through the public Go
// API: the Parquet corpus against its expected outputs, arrow-go, hyparquet and DuckDB; the
// fault matrices; Delta tables (DAT, delta-rs) and Iceberg tables; the split scan; the
// wazero host against the native engine. They sit apart from the root package, as wazero
// keeps internal/integration_test, so that the root package is the API and its examples.
package conformance
