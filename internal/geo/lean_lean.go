//go:build pqscan_lean

package geo

// leanJSON: the lean module links no encoding/json, so ParseMeta uses this package's reader.
const leanJSON = true
