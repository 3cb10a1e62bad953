package scan

import "github.com/pqscan/pqscan/internal/flatjson"

// DecodeOptions reads Options from their JSON wire form (pq_open), unknown fields refused.
//
// The usual objects (the bridges send flat objects of booleans, integers, strings and string
// arrays) are read by flatjson, without reflection: encoding/json's first Decode into Options
// was most of a fresh wasm instance's first pq_open (98–233 ms in V8 against 0.3 ms for the
// second, BENCHMARKS.md "Where a cold start goes"). Anything flatjson does not take, or
// a key or kind this table does not know, is decoded by encoding/json, so results
// and error messages are encoding/json's; Test_decodeOptionsFast and FuzzDecodeOptions check
// that both paths agree. The lean wasm module has no encoding/json (options_json_lean.go).
func DecodeOptions(raw []byte) (Options, error) {
	if o, ok := decodeOptionsFast(raw); ok {
		return o, nil
	}
	return decodeOptionsJSON(raw)
}

// decodeOptionsFast is DecodeOptions' flatjson path; ok false: decode with encoding/json.
func decodeOptionsFast(raw []byte) (Options, bool) {
	var o Options
	ok := flatjson.Parse(raw, func(k string, v flatjson.Value) bool { return o.setWire(k, v) })
	return o, ok
}

// setWire sets the field whose JSON name is k (exact match: encoding/json's case-insensitive
// matches go to the fallback) from v; false for an unknown key or a value of another kind.
func (o *Options) setWire(k string, v flatjson.Value) bool {
	var i *int64
	var n *int
	var s *string
	var b *bool
	var ss *[]string
	switch k {
	case "fileSize":
		i = &o.FileSize
	case "limit":
		i = &o.Limit
	case "offset":
		i = &o.Offset
	case "memoryCap":
		i = &o.MemoryCap
	case "tailSize":
		i = &o.TailSize
	case "roundTripBytes":
		i = &o.RoundTripBytes
	case "maxGap":
		i = &o.MaxGap
	case "rowsFrom":
		i = &o.RowsFrom
	case "rowsTo":
		i = &o.RowsTo
	case "planUnits":
		i = &o.PlanUnits
	case "batchRows":
		n = &o.BatchRows
	case "lateMaterializationThreshold":
		n = &o.LateMaterializationThreshold
	case "where":
		s = &o.Where
	case "minMax":
		s = &o.MinMax
	case "rowIndex":
		s = &o.RowIndex
	case "orderBy":
		s = &o.OrderBy
	case "fileKey":
		s = &o.FileKey
	case "dictionaryArrays":
		b = &o.DictionaryArrays
	case "count":
		b = &o.Count
	case "explain":
		b = &o.Explain
	case "noPrune":
		b = &o.NoPrune
	case "noVerifyCrc":
		b = &o.NoVerifyCRC
	case "metadata":
		b = &o.Metadata
	case "columns":
		ss = &o.Columns
	case "disable":
		ss = &o.Disable
	default:
		return false
	}
	switch {
	case i != nil && v.Kind == flatjson.Int:
		*i = v.I
	case n != nil && v.Kind == flatjson.Int && int64(int(v.I)) == v.I:
		*n = int(v.I)
	case s != nil && v.Kind == flatjson.String:
		*s = v.S
	case b != nil && v.Kind == flatjson.Bool:
		*b = v.B
	case ss != nil && v.Kind == flatjson.Strings:
		*ss = v.SS
	default:
		return false
	}
	return true
}
