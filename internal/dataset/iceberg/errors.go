package iceberg

import "errors"

// Sentinel errors. Functions wrap them with %w and add the metadata file, manifest, data
// file, column or feature they concern.
var (
	// ErrMalformed reports table metadata, a manifest list, a manifest or a delete file that
	// does not read as the Iceberg table and Puffin specs say: invalid JSON, a missing required
	// field, an entry whose file is not a record, a deletion vector whose checksum or
	// cardinality disagrees, a deleted position past its data file's rows.
	ErrMalformed = errors.New("iceberg: malformed table metadata")

	// ErrUnsupportedFeature reports a table this reader cannot read right yet (ORC or Avro
	// data or delete files, equality deletes on nested or type-promoted columns, a type without a Parquet
	// reading here, a default value on a nested field, encrypted files); the message names the file or column.
	// The table is refused rather than read wrong.
	ErrUnsupportedFeature = errors.New("iceberg: unsupported feature")

	// ErrNotATable reports a folder with no table metadata file (no version hint and no
	// *.metadata.json under metadata/).
	ErrNotATable = errors.New("iceberg: not an iceberg table")

	// ErrSnapshotNotFound reports a snapshot id the metadata does not hold (the current
	// one, or one asked for).
	ErrSnapshotNotFound = errors.New("iceberg: snapshot not found")

	// ErrMissingFile reports a metadata file, manifest list or manifest the table names
	// that is not there.
	ErrMissingFile = errors.New("iceberg: file referenced by the table metadata is missing")

	// ErrOutsideTable reports a manifest or data file whose path is not under the table's
	// location, so that it cannot be found in the folder the table was opened from.
	ErrOutsideTable = errors.New("iceberg: file outside the table location")
)
