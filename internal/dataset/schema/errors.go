package schema

import "errors"

// Sentinel errors, wrapped with %w and the file and column path they concern.
var (
	// ErrIncompatible reports a file column whose type cannot be read as the table's type
	// without losing values (for example int64 into int32, or string into int64).
	ErrIncompatible = errors.New("dataset: incompatible column type")

	// ErrMissingColumn reports a non-nullable table column that a file does not have: its
	// rows cannot be filled with nulls.
	ErrMissingColumn = errors.New("dataset: required column missing from file")

	// ErrAmbiguous reports a case-insensitive name lookup that matches several file columns.
	ErrAmbiguous = errors.New("dataset: ambiguous column name")
)
