package optimize

import "errors"

// ErrOption: an option value cannot be parsed or is out of range.
var ErrOption = errors.New("optimize: bad option")

// ErrSortKey: a --sort-by column is missing, nested, or of a type rows cannot be sorted by.
var ErrSortKey = errors.New("optimize: bad sort key")

// ErrBloomColumn: a --bloom column is missing or is not a top-level leaf column.
var ErrBloomColumn = errors.New("optimize: bad bloom filter column")

// ErrType: a column type the rewrite cannot carry (arrow-go cannot take or write it).
var ErrType = errors.New("optimize: unsupported column type")
