package variant

import "errors"

var (
	// ErrMetadata reports variant metadata that does not follow VariantEncoding.md § Metadata
	// encoding: a wrong version, a truncated header or dictionary, an offset outside the
	// string bytes, or a field id beyond the dictionary.
	ErrMetadata = errors.New("variant: invalid metadata")
	// ErrValue reports a variant value that does not follow VariantEncoding.md § Value encoding:
	// truncated data, an unknown type, an offset outside its object or array, invalid UTF-8,
	// unsorted or duplicate object keys, or children that overlap (see AppendJSON).
	ErrValue = errors.New("variant: invalid value")
	// ErrShredding reports a shredded VARIANT group that breaks VariantShredding.md: a field
	// layout or typed_value type the spec does not allow, or value and typed_value both set
	// where only one may be.
	ErrShredding = errors.New("variant: invalid shredding")
	// ErrTooDeep reports a value nested more than MaxDepth arrays and objects deep; the limit
	// keeps hostile input from exhausting the stack.
	ErrTooDeep = errors.New("variant: value nested too deeply")
	// ErrTooLarge reports a JSON text that would exceed MaxJSON bytes, or an unshredded column
	// whose bytes exceed the int32 offsets of an Arrow Binary array.
	ErrTooLarge = errors.New("variant: result too large")
)
