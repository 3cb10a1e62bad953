package delta

import "errors"

// Sentinel errors. Functions wrap them with %w and add the log file, line, version, data file
// or feature they concern.
var (
	// ErrMalformed reports a log file that does not parse: invalid or truncated JSON, a line
	// that is not one action, an action missing a required field, a bad _last_checkpoint.
	ErrMalformed = errors.New("dataset: malformed delta log")

	// ErrSchema reports a schemaString that is not a valid Delta schema.
	ErrSchema = errors.New("dataset: invalid delta schema")

	// ErrUnsupportedFeature reports a table that needs a reader feature this reader does
	// not implement (an unknown columnMapping mode, deletion vectors on a live file, variantType, a
	// reader version above 3, an unknown feature); the message names the feature. The table
	// is refused rather than read wrong.
	ErrUnsupportedFeature = errors.New("dataset: unsupported delta feature")

	// ErrVersionGap reports a hole in the commit sequence: version N+1 follows N-1, or the
	// commits after a checkpoint do not start right after it.
	ErrVersionGap = errors.New("dataset: delta log has a version gap")

	// ErrVersionNotFound reports a requested version beyond the latest commit, or older than
	// the oldest version the remaining log can reconstruct.
	ErrVersionNotFound = errors.New("dataset: delta version not found")

	// ErrNotATable reports a _delta_log without any commit or checkpoint.
	ErrNotATable = errors.New("dataset: not a delta table")

	// ErrNoMetadata reports a replayed log without a metaData action.
	ErrNoMetadata = errors.New("dataset: delta log has no metaData action")

	// ErrNoProtocol reports a replayed log without a protocol action.
	ErrNoProtocol = errors.New("dataset: delta log has no protocol action")

	// ErrMissingFile reports a file the log refers to that is absent: a checkpoint part or
	// sidecar that was not supplied, or (via CheckFiles) a data file.
	ErrMissingFile = errors.New("dataset: file referenced by the delta log is missing")

	// ErrPartition reports a partition value that does not parse as its column's type.
	ErrPartition = errors.New("dataset: invalid delta partition value")

	// ErrOrder reports Replay calls in the wrong order (a checkpoint after a commit,
	// decreasing versions).
	ErrOrder = errors.New("dataset: delta replay out of order")
)
