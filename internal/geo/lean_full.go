//go:build !pqscan_lean

package geo

// leanJSON: the full module links encoding/json for its table formats, so ParseMeta uses it
// (this package's reader would add its code beside it).
const leanJSON = false
