package prune

import "errors"

// Sentinel errors. Functions wrap them with %w and add the position, column or literal
// they concern, so callers can test with errors.Is and still show a precise message.
var (
	// ErrSyntax reports a malformed SQL WHERE expression; the wrapped message names the
	// 1-based byte position and the offending token.
	ErrSyntax = errors.New("prune: syntax error")

	// ErrJSON reports a malformed JSON wire-form expression.
	ErrJSON = errors.New("prune: invalid JSON expression")

	// ErrUnknownColumn reports a column path that the schema lookup does not know.
	ErrUnknownColumn = errors.New("prune: unknown column")

	// ErrIncomparable reports a literal whose kind cannot be compared with a column's type
	// (for example a string literal against an INT32 column).
	ErrIncomparable = errors.New("prune: incomparable types")

	// ErrBadLiteral reports a literal that has the right kind but an invalid value for the
	// column, such as '2024-13-01' against a DATE column.
	ErrBadLiteral = errors.New("prune: invalid literal")

	// ErrBadType reports a ColumnType the package cannot evaluate (for example a timestamp
	// without a unit, or a decimal scale outside 0..76).
	ErrBadType = errors.New("prune: unsupported column type")

	// ErrVector reports a Vector handed to Filter that is missing, of the wrong kind, or
	// whose buffers are too short for the row count.
	ErrVector = errors.New("prune: invalid vector")
)
