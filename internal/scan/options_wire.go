package scan

import (
	"strconv"

	"github.com/pqscan/pqscan/internal/flatjson"
	"github.com/pqscan/pqscan/internal/jsonw"
)

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
	f := o.field(k)
	switch {
	case f.i != nil && v.Kind == flatjson.Int:
		*f.i = v.I
	case f.n != nil && v.Kind == flatjson.Int && int64(int(v.I)) == v.I:
		*f.n = int(v.I)
	case f.s != nil && v.Kind == flatjson.String:
		*f.s = v.S
	case f.b != nil && v.Kind == flatjson.Bool:
		*f.b = v.B
	case f.ss != nil && v.Kind == flatjson.Strings:
		*f.ss = v.SS
	default:
		return false
	}
	return true
}

// optField points at the field of Options a JSON name sets; all nil for an unknown name.
type optField struct {
	i  *int64
	n  *int
	s  *string
	b  *bool
	ss *[]string
}

// field is the field whose JSON name is k (matched exactly).
func (o *Options) field(k string) optField {
	var f optField
	switch k {
	case "fileSize":
		f.i = &o.FileSize
	case "limit":
		f.i = &o.Limit
	case "offset":
		f.i = &o.Offset
	case "memoryCap":
		f.i = &o.MemoryCap
	case "tailSize":
		f.i = &o.TailSize
	case "roundTripBytes":
		f.i = &o.RoundTripBytes
	case "maxGap":
		f.i = &o.MaxGap
	case "rowsFrom":
		f.i = &o.RowsFrom
	case "rowsTo":
		f.i = &o.RowsTo
	case "planUnits":
		f.i = &o.PlanUnits
	case "batchRows":
		f.n = &o.BatchRows
	case "lateMaterializationThreshold":
		f.n = &o.LateMaterializationThreshold
	case "where":
		f.s = &o.Where
	case "minMax":
		f.s = &o.MinMax
	case "rowIndex":
		f.s = &o.RowIndex
	case "orderBy":
		f.s = &o.OrderBy
	case "fileKey":
		f.s = &o.FileKey
	case "dictionaryArrays":
		f.b = &o.DictionaryArrays
	case "count":
		f.b = &o.Count
	case "explain":
		f.b = &o.Explain
	case "noPrune":
		f.b = &o.NoPrune
	case "noVerifyCrc":
		f.b = &o.NoVerifyCRC
	case "variantJSON":
		f.b = &o.VariantJSON
	case "metadata":
		f.b = &o.Metadata
	case "columns":
		f.ss = &o.Columns
	case "disable":
		f.ss = &o.Disable
	}
	return f
}

// wireNames are Options' JSON names in the order of its fields, the order encoding/json
// writes them in (Test_appendMembers checks the list against the struct's tags).
var wireNames = [...]string{"fileSize", "columns", "where", "limit", "offset", "batchRows", "memoryCap",
	"tailSize", "dictionaryArrays", "roundTripBytes", "maxGap", "count", "minMax", "rowIndex", "orderBy",
	"explain", "noPrune", "lateMaterializationThreshold", "disable", "noVerifyCrc", "variantJSON", "metadata", "fileKey",
	"rowsFrom", "rowsTo", "planUnits"}

// AppendMembers writes o's members into w as encoding/json's Marshal writes them: every
// field is omitempty, so only the set ones. A table's options (pq_snapshot) embed them.
func (o *Options) AppendMembers(w *jsonw.Object) {
	for _, k := range wireNames {
		f := o.field(k)
		switch {
		case f.i != nil && *f.i != 0:
			w.AnyKey(k)
			w.B = strconv.AppendInt(w.B, *f.i, 10)
		case f.n != nil && *f.n != 0:
			w.AnyKey(k)
			w.B = strconv.AppendInt(w.B, int64(*f.n), 10)
		case f.s != nil && *f.s != "":
			w.AnyKey(k)
			w.B = jsonw.String(w.B, *f.s)
		case f.b != nil && *f.b:
			w.AnyKey(k)
			w.B = append(w.B, "true"...)
		case f.ss != nil && len(*f.ss) > 0:
			w.Strings(`,"`+k+`":`, *f.ss)
		}
	}
}
