package hive

import "errors"

// Sentinel errors, wrapped with %w and the file path and key they concern.
var (
	// ErrInconsistent reports a file whose partition keys (names or order) differ from the
	// first file's: the files cannot form one table.
	ErrInconsistent = errors.New("dataset: inconsistent hive partition keys")

	// ErrDuplicateKey reports a path that names the same partition key twice (a=1/a=2).
	ErrDuplicateKey = errors.New("dataset: duplicate hive partition key")

	// ErrValue reports a partition value that does not parse as the type the user's schema
	// gives its column.
	ErrValue = errors.New("dataset: invalid hive partition value")
)
