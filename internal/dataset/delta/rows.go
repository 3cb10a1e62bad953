package delta

import (
	"errors"
	"sort"
	"strconv"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// ActionsFromRows converts checkpoint rows into actions. Each row is one Parquet row of a
// checkpoint (or sidecar) in a generic form: a map from top-level column ("add", "remove",
// "metaData", "protocol", "txn", "domainMetadata", "sidecar", "checkpointMetadata") to nil or
// a nested map, with strings, booleans, integers (any Go integer type), float64 and []any
// lists. A Parquet MAP column (partitionValues, tags, configuration, format.options) may be
// given either as a map[string]any or as the []any of {"key":…, "value":…} entries a generic
// Parquet decoder produces. []byte is taken as a UTF-8 string.
//
// The row is re-encoded as the JSON action it stands for and parsed by the same code as
// commits, so both sources get exactly the same validation. Rows with every column null are
// skipped. stats_parsed is ignored: the JSON `stats` column is used (checkpoints written with
// delta.checkpoint.writeStatsAsJson=false leave files without statistics, which only costs
// skipping).
func ActionsFromRows(name string, rows []map[string]any) ([]Action, error) {
	var out []Action
	var buf []byte
	for i, row := range rows {
		m := map[string]any{}
		for k, v := range row {
			if v == nil || k == "stats_parsed" {
				continue
			}
			m[k] = normalize(k, v)
		}
		if len(m) == 0 {
			continue
		}
		if add, ok := m["add"].(map[string]any); ok {
			delete(add, "stats_parsed")
			delete(add, "partitionValues_parsed")
		}
		var err error
		buf, err = appendAny(buf[:0], m)
		if err != nil {
			return nil, errf.Errorf("%w: %s row %d: %v", ErrMalformed, name, i, err)
		}
		a, ok, err := parseAction(buf)
		if err != nil {
			return nil, errf.Errorf("%w: %s row %d: %v", ErrMalformed, name, i, err)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// mapColumns are the checkpoint columns of Parquet MAP type: an empty list there is an empty
// map (a generic decoder cannot tell them apart).
var mapColumns = map[string]bool{"partitionValues": true, "tags": true, "configuration": true, "options": true}

// normalize turns generic decoder output into values appendAny writes as the log's JSON;
// name is the column the value belongs to.
func normalize(name string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(k, e)
		}
		return out
	case []any:
		if len(x) == 0 && mapColumns[name] {
			return map[string]any{}
		}
		if kv, ok := keyValueList(x); ok {
			return kv
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize("", e)
		}
		return out
	case []byte:
		return string(x)
	}
	return v
}

// keyValueList converts a list of {"key","value"} maps into a map.
func keyValueList(x []any) (map[string]any, bool) {
	if len(x) == 0 {
		return nil, false
	}
	out := make(map[string]any, len(x))
	for _, e := range x {
		m, ok := e.(map[string]any)
		if !ok || len(m) != 2 {
			return nil, false
		}
		k, ok := m["key"].(string)
		if !ok {
			if b, isB := m["key"].([]byte); isB {
				k, ok = string(b), true
			}
		}
		if _, hasV := m["value"]; !ok || !hasV {
			return nil, false
		}
		out[k] = normalize("", m["value"])
	}
	return out, true
}

var errUnsupported = errors.New("a value of a type a Parquet decoder does not produce")

// appendAny appends v as JSON the way encoding/json's Marshal writes it (map keys sorted,
// strings escaped alike, floats in its format), for the types ActionsFromRows takes (any
// other, float32 included, is an error: a Parquet decoder widens floats to float64). The
// action parser then reads what a commit line would hold, so both get the same checks.
// A NaN or infinite float is an error, as for Marshal.
func appendAny(b []byte, v any) ([]byte, error) {
	var n int64
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return jsonw.String(b, x), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case float64:
		out, ok := jsonw.Float(b, x)
		if !ok {
			return b, errors.New("unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64))
		}
		return out, nil
	case []any:
		return appendList(b, x)
	case map[string]any:
		return appendMap(b, x)
	case int64:
		n = x
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case int16:
		n = int64(x)
	case int8:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint8:
		n = int64(x)
	default:
		return b, errUnsupported
	}
	return strconv.AppendInt(b, n, 10), nil
}

func appendList(b []byte, x []any) ([]byte, error) {
	b = append(b, '[')
	for i, e := range x {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendAny(b, e); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendMap(b []byte, x map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonw.String(b, k), ':')
		var err error
		if b, err = appendAny(b, x[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
