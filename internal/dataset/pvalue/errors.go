package pvalue

import "errors"

// ErrSyntax reports a string that is not a valid value of the requested type (for example
// "2024-13-01" as a date, "1.234" as DECIMAL(9,2)); the wrapped message quotes it.
var ErrSyntax = errors.New("dataset: invalid value")

// ErrType reports a requested type the parser does not handle (time of day, unsigned,
// a timestamp without a unit).
var ErrType = errors.New("dataset: unsupported value type")
