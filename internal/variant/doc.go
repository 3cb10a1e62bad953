// Package variant reads Parquet's VARIANT logical type (parquet-format VariantEncoding.md and
// VariantShredding.md): Unshred reassembles a possibly shredded VARIANT group, as the decoder
// emits it (a struct of metadata, value and typed_value), into one metadata and one value
// binary per row, and AppendJSON renders such a pair as JSON text.
//
// The package does no I/O and links no reflection (no fmt, no encoding/json): it runs inside
// the size-budgeted wasm module. Both functions treat their input as hostile: every offset and
// length is checked, recursion is bounded (MaxDepth), and failures are errors, never panics.
//
// # JSON conventions
//
// The text is DuckDB 1.5's CAST(v AS JSON) (its yyjson writer), compact, byte for byte, except
// where DuckDB's text is not JSON (NaN and the infinities) and for types DuckDB cannot hold:
//
//	Variant type              JSON                                   note
//	null                      null
//	boolean                   true, false
//	int8/16/32/64             -300
//	float                     0.10000000149011612                    widened to double first, as DuckDB does
//	double                    0.1, 1.0, 100.0, 1e21, 1.5e-7, -0.0    shortest round trip; fixed notation for
//	                                                                  1e-7 < |x| < 1e21, with ".0" if integral
//	float/double NaN, ±Inf    "NaN", "Infinity", "-Infinity"          DuckDB writes them bare (invalid JSON)
//	decimal4/8/16             123.45, -0.050, 5                      a number with exactly scale decimals
//	date                      "2024-01-02", "0045-03-15 (BC)"        DuckDB's ±infinity days as "infinity"
//	timestamp (tz, micros)    "2024-01-02 03:04:05.5+00"             fraction's trailing zeros dropped; UTC
//	timestamp_ntz (micros)    "2024-01-02 03:04:05.123456"
//	timestamp (tz, nanos)     "2024-01-02 03:04:05.123456789+00"     DuckDB has no such type: like micros
//	timestamp_ntz (nanos)     "2024-01-02 03:04:05.123456789"
//	time (micros)             "03:04:05.25"
//	binary                    "\\x00\\xFFab"                         DuckDB's BLOB text: printable ASCII except
//	                                                                  ' " \ as is, other bytes \xHH
//	string                    "a\"b\n\u0001é"                        only " \ and C0 controls escaped
//	uuid                      "12345678-1234-5678-1234-567812345678"
//	object                    {"a":1,"b":[1,2]}                      keys sorted by name (bytewise)
//	array                     [1,"x",null]
//
// TIMESTAMPTZ values print in UTC ("+00"): DuckDB prints them in its session time zone, and
// the differential test sets it to UTC. Years beyond 9999 print with more digits
// ("12345-01-01"). DuckDB's special values (date ±2147483647, timestamp ±9223372036854775807)
// print as "infinity" and "-infinity".
//
// Two places where DuckDB's text is not JSON are not copied: bare NaN/Infinity (see the
// table), and decimals read from Parquet, which DuckDB 1.5 prints without the zero before the
// point (".5", "-.050"; it prints "0.5" for the same value built in SQL).
//
// # What the spec leaves open, and the choices made
//
//   - Invalid UTF-8 in strings or keys is an error (the spec requires UTF-8; replacing it would
//     make different values render alike).
//   - Object keys are rendered sorted by name. The spec requires values to store them so, and
//     then this is the stored order; DuckDB 1.5 writes objects whose field ids are in another
//     order and renders them sorted, so this package does too. A key repeated in one object
//     (the spec forbids it) is an error rather than rendered twice.
//   - The metadata sorted_strings flag is never relied on (DuckDB sets it on unsorted dictionaries).
//   - Trailing bytes after a value or after the metadata strings are ignored.
//   - Primitive type ids above 20 are an error: their size is unknown, so nothing after them
//     can be read.
//   - A time of day outside 00:00:00 to 24:00:00 is an error.
package variant
