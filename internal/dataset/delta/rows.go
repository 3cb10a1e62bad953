package delta

import (
	"encoding/json"
	"fmt"
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
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %s row %d: %v", ErrMalformed, name, i, err)
		}
		a, ok, err := parseAction(b)
		if err != nil {
			return nil, fmt.Errorf("%w: %s row %d: %v", ErrMalformed, name, i, err)
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

// normalize turns generic decoder output into values encoding/json writes as the log's JSON;
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
