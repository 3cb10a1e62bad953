//go:build !pqscan_lean

package scan

import (
	"bytes"
	"encoding/json"
)

// decodeOptionsJSON is DecodeOptions for what flatjson does not take: encoding/json, unknown
// fields refused.
func decodeOptionsJSON(raw []byte) (Options, error) {
	var o Options
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&o)
	return o, err
}
