package avro

import "errors"

var (
	// ErrMalformed reports bytes that are not a valid Avro object container file: a bad
	// magic or sync marker, a length or count beyond the input, a truncated value, a union
	// branch or enum index out of range. The message says where.
	ErrMalformed = errors.New("avro: malformed file")
	// ErrSchema reports a writer's schema (the header's avro.schema) that does not parse or
	// names a type that is not defined.
	ErrSchema = errors.New("avro: invalid schema")
	// ErrUnsupported reports a codec this reader does not decode (null, deflate, snappy and
	// zstandard are read: what Iceberg writers use for manifests; bzip2 and xz are not).
	ErrUnsupported = errors.New("avro: unsupported")
	// ErrLimit reports a file whose decompressed blocks or values exceed the caller's
	// memory cap, or nest deeper than MaxDepth.
	ErrLimit = errors.New("avro: limit exceeded")
)
