package decode

import "errors"

var (
	// ErrSchema: the file's schema is malformed or uses a construct this reader cannot map.
	ErrSchema = errors.New("decode: invalid schema")
	// ErrPage: a page header or page body is malformed (sizes, counts, encodings).
	ErrPage = errors.New("decode: invalid page")
	// ErrLevels: definition/repetition levels are inconsistent with the schema.
	ErrLevels = errors.New("decode: invalid levels")
	// ErrValue: a value cannot be represented in its Arrow type.
	ErrValue = errors.New("decode: invalid value")
	// ErrMemory: decoding would exceed the memory cap.
	ErrMemory = errors.New("decode: memory cap exceeded")
	// ErrChecksum: a page's CRC does not match its bytes.
	ErrChecksum = errors.New("decode: page checksum mismatch")
	// ErrUnsupported: a valid but unsupported feature (e.g. an encoding this reader lacks).
	ErrUnsupported = errors.New("decode: unsupported")
)

// ErrSelection: a caller read rows outside the selection it gave the reader (SetSelection),
// whose values were never decoded; reported instead of answering with other rows' values.
var ErrSelection = errors.New("decode: read outside the selection")
