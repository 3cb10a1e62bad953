package format

import "errors"

// Sentinel errors. Decoders wrap them (and thrift's sentinels) with the structure and field
// concerned, e.g. "format: ColumnMetaData: required field missing: type".
var (
	// ErrMissingField means a field that parquet.thrift marks required was absent (or had a
	// wire type other than the one the spec gives it, which Thrift readers treat as absent).
	ErrMissingField = errors.New("format: required field missing")
	// ErrInvalid means a decoded value that cannot be right whatever the writer meant, such as
	// a negative page size; it is rejected here so that callers can do arithmetic on it safely.
	ErrInvalid = errors.New("format: invalid value")
	// ErrEmpty means the input had no bytes at all.
	ErrEmpty = errors.New("format: empty input")
)
