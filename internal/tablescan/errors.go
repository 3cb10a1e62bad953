package tablescan

import "errors"

var (
	// ErrOptions: the table options are invalid (no files, a negative size, …).
	ErrOptions = errors.New("tablescan: invalid options")
	// ErrSchema: a file's schema cannot be read as the table's (an incompatible type, a
	// column the predicate needs that the file lacks); the message names file and column.
	ErrSchema = errors.New("tablescan: file does not fit the table schema")
	// ErrUnsupported: the query needs something this version does not do yet (a nested
	// column path); never a wrong answer instead.
	ErrUnsupported = errors.New("tablescan: not supported over a table yet")
	// ErrProtocol: the host broke the protocol (Push instead of PushFile, an unknown file).
	ErrProtocol = errors.New("tablescan: protocol violation")
)
