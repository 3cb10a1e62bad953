package arrowipc

import "errors"

var (
	// ErrType reports a DataType the encoder cannot express: an unknown TypeID, a bit width or
	// unit that Arrow does not define for the type, or a missing Elem/Fields.
	ErrType = errors.New("arrowipc: invalid data type")
	// ErrArray reports an Array that does not match its type: wrong length, short buffers,
	// non-monotonic offsets, a wrong null count or missing children. It means the producer (the
	// Parquet decoder) has a bug; the encoder refuses rather than emit a stream readers would
	// misread.
	ErrArray = errors.New("arrowipc: array does not match its type")
	// ErrDictionary reports a dictionary-encoded array whose Dict is missing or invalid, or
	// whose indices fall outside the dictionary.
	ErrDictionary = errors.New("arrowipc: invalid dictionary")
	// ErrTooDeep reports a type nested deeper than maxDepth; it bounds recursion on schemas
	// derived from untrusted files.
	ErrTooDeep = errors.New("arrowipc: type nested too deeply")
)
