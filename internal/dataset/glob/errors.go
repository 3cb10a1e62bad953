package glob

import "errors"

// ErrBadPattern reports a malformed glob (an unclosed '[' class, a trailing '\'); the wrapped
// message quotes the pattern.
var ErrBadPattern = errors.New("dataset: bad glob pattern")
