package delta

// The readers as they were written over encoding/json: the oracles the differential fuzz
// targets (std_fuzz_test.go) compare the jsonv readers with.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
)

// actionJSONStd is one line of a commit; pointers tell which action is present.
type actionJSONStd struct {
	Add                *Add                `json:"add"`
	Remove             *Remove             `json:"remove"`
	Metadata           *Metadata           `json:"metaData"`
	Protocol           *Protocol           `json:"protocol"`
	CommitInfo         json.RawMessage     `json:"commitInfo"`
	Txn                *Txn                `json:"txn"`
	DomainMetadata     *DomainMetadata     `json:"domainMetadata"`
	CDC                *CDC                `json:"cdc"`
	CheckpointMetadata *CheckpointMetadata `json:"checkpointMetadata"`
	Sidecar            *Sidecar            `json:"sidecar"`
}

// parseActionStd decodes one JSON object; ok is false for an action kind this reader ignores.
func parseActionStd(l []byte) (Action, bool, error) {
	if l[0] != '{' {
		return Action{}, false, fmt.Errorf("not a JSON object")
	}
	var j actionJSONStd
	if err := json.Unmarshal(l, &j); err != nil {
		return Action{}, false, err
	}
	if string(j.CommitInfo) == "null" {
		j.CommitInfo = nil
	}
	a := Action{Add: j.Add, Remove: j.Remove, Metadata: j.Metadata, Protocol: j.Protocol, CommitInfo: j.CommitInfo,
		Txn: j.Txn, DomainMetadata: j.DomainMetadata, CDC: j.CDC, CheckpointMetadata: j.CheckpointMetadata, Sidecar: j.Sidecar}
	n := 0
	for _, set := range []bool{a.Add != nil, a.Remove != nil, a.Metadata != nil, a.Protocol != nil, a.CommitInfo != nil,
		a.Txn != nil, a.DomainMetadata != nil, a.CDC != nil, a.CheckpointMetadata != nil, a.Sidecar != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return Action{}, false, nil
	case n > 1:
		return Action{}, false, fmt.Errorf("%d actions on one line", n)
	}
	switch {
	case a.Add != nil && a.Add.Path == "", a.Remove != nil && a.Remove.Path == "", a.CDC != nil && a.CDC.Path == "",
		a.Sidecar != nil && a.Sidecar.Path == "":
		return Action{}, false, fmt.Errorf("action without a path")
	case a.Add != nil && a.Add.Size < 0:
		return Action{}, false, fmt.Errorf("add %q: negative size %d", a.Add.Path, a.Add.Size)
	case a.Metadata != nil && a.Metadata.SchemaString == "":
		return Action{}, false, fmt.Errorf("metaData without schemaString")
	case a.Protocol != nil && a.Protocol.MinReaderVersion < 1:
		return Action{}, false, fmt.Errorf("protocol minReaderVersion %d", a.Protocol.MinReaderVersion)
	}
	return a, true, nil
}

// ParseLastCheckpointStd parses _last_checkpoint. The checksum is not verified (it only guards
// against torn writes of the hint; a wrong hint fails later as a missing or bad checkpoint).
func ParseLastCheckpointStd(data []byte) (*LastCheckpoint, error) {
	var lc LastCheckpoint
	if err := json.Unmarshal(bytes.TrimSpace(data), &lc); err != nil {
		return nil, fmt.Errorf("%w: _last_checkpoint: %v", ErrMalformed, err)
	}
	if lc.Version < 0 || lc.Parts != nil && (*lc.Parts < 1 || *lc.Parts > 100000) {
		return nil, fmt.Errorf("%w: _last_checkpoint: version %d, parts %v", ErrMalformed, lc.Version, lc.Parts)
	}
	if lc.V2Checkpoint != nil {
		if _, ok := ParseLogName(lc.V2Checkpoint.Path); !ok {
			return nil, fmt.Errorf("%w: _last_checkpoint: v2Checkpoint path %q", ErrMalformed, lc.V2Checkpoint.Path)
		}
	}
	return &lc, nil
}

// inCommitTimestampStd returns the commitInfo.inCommitTimestampStd of a commit's actions.
func inCommitTimestampStd(name string, acts []Action) (int64, error) {
	for _, a := range acts {
		if a.CommitInfo != nil {
			var ci struct {
				ICT *int64 `json:"inCommitTimestamp"`
			}
			if json.Unmarshal(a.CommitInfo, &ci) == nil && ci.ICT != nil {
				return *ci.ICT, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: %s has no commitInfo.inCommitTimestampStd, and the table enables it", ErrMalformed, name)
}

type jsonFieldStd struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable *bool           `json:"nullable"`
	Metadata map[string]any  `json:"metadata"`
}

type jsonTypeStd struct {
	Type              string          `json:"type"`
	Fields            []jsonFieldStd  `json:"fields"`
	ElementType       json.RawMessage `json:"elementType"`
	ContainsNull      *bool           `json:"containsNull"`
	KeyType           json.RawMessage `json:"keyType"`
	ValueType         json.RawMessage `json:"valueType"`
	ValueContainsNull *bool           `json:"valueContainsNull"`
}

// ParseSchemaStd parses a metaData schemaString into the table's top-level fields.
func ParseSchemaStd(s string) ([]schema.Field, error) {
	var t jsonTypeStd
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if t.Type != "struct" {
		return nil, fmt.Errorf("%w: top level is %q, want struct", ErrSchema, t.Type)
	}
	return parseFieldsStd(t.Fields, "", 0)
}

func parseFieldsStd(fs []jsonFieldStd, prefix string, depth int) ([]schema.Field, error) {
	out := make([]schema.Field, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		path := prefix + f.Name
		if f.Name == "" {
			return nil, fmt.Errorf("%w: field without a name in %q", ErrSchema, prefix)
		}
		if low := strings.ToLower(f.Name); seen[low] {
			return nil, fmt.Errorf("%w: duplicate column %q (names are case-insensitive)", ErrSchema, path)
		} else {
			seen[low] = true
		}
		nf, err := parseTypeStd(f.Type, path, depth+1)
		if err != nil {
			return nil, err
		}
		nf.Name = f.Name
		nf.Nullable = f.Nullable == nil || *f.Nullable
		if err := readColumnMappingStd(&nf, f.Metadata, path); err != nil {
			return nil, err
		}
		if tc, ok := f.Metadata["delta.typeChanges"]; ok {
			if err := applyTypeChangesStd(&nf, tc, path); err != nil {
				return nil, err
			}
		}
		out = append(out, nf)
	}
	return out, nil
}

func parseTypeStd(raw json.RawMessage, path string, depth int) (schema.Field, error) {
	if depth > maxSchemaDepth {
		return schema.Field{}, fmt.Errorf("%w: %q nested deeper than %d", ErrSchema, path, maxSchemaDepth)
	}
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		t, err := primitive(name, path)
		return schema.Field{Type: t}, err
	}
	var t jsonTypeStd
	if err := json.Unmarshal(raw, &t); err != nil {
		return schema.Field{}, fmt.Errorf("%w: column %q: %v", ErrSchema, path, err)
	}
	switch t.Type {
	case "struct":
		kids, err := parseFieldsStd(t.Fields, path+".", depth)
		return schema.Field{Type: schema.Type{Kind: schema.Struct}, Children: kids}, err
	case "array":
		el, err := parseTypeStd(t.ElementType, path+".element", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		el.Name, el.Nullable = "element", t.ContainsNull == nil || *t.ContainsNull
		return schema.Field{Type: schema.Type{Kind: schema.List}, Children: []schema.Field{el}}, nil
	case "map":
		k, err := parseTypeStd(t.KeyType, path+".key", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		v, err := parseTypeStd(t.ValueType, path+".value", depth+1)
		if err != nil {
			return schema.Field{}, err
		}
		k.Name, k.Nullable = "key", false
		v.Name, v.Nullable = "value", t.ValueContainsNull == nil || *t.ValueContainsNull
		return schema.Field{Type: schema.Type{Kind: schema.Map}, Children: []schema.Field{k, v}}, nil
	}
	return schema.Field{}, fmt.Errorf("%w: column %q: unknown type %q", ErrSchema, path, t.Type)
}

type typeChangeStd struct {
	FromType  string `json:"fromType"`
	ToType    string `json:"toType"`
	FieldPath string `json:"fieldPath"`
}

// applyTypeChangesStd checks the changes recorded for f (a JSON list, or a string holding one)
// and records each one's fromType in Widened of the field it names.
func applyTypeChangesStd(f *schema.Field, raw any, path string) error {
	var b []byte
	if s, ok := raw.(string); ok {
		b = []byte(s)
	} else {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return fmt.Errorf("%w: column %q: delta.typeChanges: %v", ErrSchema, path, err)
		}
	}
	var changes []typeChangeStd
	if err := json.Unmarshal(b, &changes); err != nil {
		return fmt.Errorf("%w: column %q: delta.typeChanges: %v", ErrSchema, path, err)
	}
	for _, c := range changes {
		target, at := f, path
		if c.FieldPath != "" {
			for _, step := range strings.Split(c.FieldPath, ".") {
				at += "." + step
				k := -1
				switch {
				case step == "element" && target.Type.Kind == schema.List:
					k = 0
				case step == "key" && target.Type.Kind == schema.Map:
					k = 0
				case step == "value" && target.Type.Kind == schema.Map:
					k = 1
				}
				if k < 0 || k >= len(target.Children) {
					return fmt.Errorf("%w: column %q: delta.typeChanges names %q, which is not in the schema", ErrSchema, path, c.FieldPath)
				}
				target = &target.Children[k]
			}
		}
		from, err1 := primitive(c.FromType, at)
		to, err2 := primitive(c.ToType, at)
		if err1 != nil || err2 != nil || !deltaWidens(from, to) {
			return fmt.Errorf("%w: typeWidening: column %q changed from %q to %q", ErrUnsupportedFeature, at, c.FromType, c.ToType)
		}
		target.Widened = append(target.Widened, from)
	}
	return nil
}

// readColumnMappingStd records a field's mapping metadata (its physical name and id) in f. The
// mode decides later whether they are used (applyColumnMapping).
func readColumnMappingStd(f *schema.Field, md map[string]any, path string) error {
	if v, ok := md[metaPhysicalName]; ok {
		s, isStr := v.(string)
		if !isStr || s == "" {
			return fmt.Errorf("%w: column %q: %s is not a name", ErrSchema, path, metaPhysicalName)
		}
		f.PhysicalName = s
	}
	if v, ok := md[metaColumnID]; ok {
		id, ok := columnIDStd(v)
		if !ok {
			return fmt.Errorf("%w: column %q: %s %v is not a positive 32-bit integer", ErrSchema, path, metaColumnID, v)
		}
		f.FieldID = id
	}
	return nil
}

// columnIDStd reads an id as a JSON decoder may give it; Parquet field ids are 32-bit, and
// writers assign them from 1.
func columnIDStd(v any) (int32, bool) {
	var n int64
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x < 1 || x > math.MaxInt32 {
			return 0, false
		}
		n = int64(x)
	case json.Number:
		var err error
		if n, err = strconv.ParseInt(x.String(), 10, 64); err != nil {
			return 0, false
		}
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		return 0, false
	}
	if n < 1 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

type statsJSONStd struct {
	NumRecords  *json.Number   `json:"numRecords"`
	TightBounds *bool          `json:"tightBounds"`
	MinValues   map[string]any `json:"minValues"`
	MaxValues   map[string]any `json:"maxValues"`
	NullCount   map[string]any `json:"nullCount"`
}

// ParseStatsStd parses an add's stats string against the table's data columns.
func ParseStatsStd(s string, fields []schema.Field) (*Stats, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var j statsJSONStd
	if err := d.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: stats: %v", ErrMalformed, err)
	}
	st := &Stats{NumRecords: -1, TightBounds: j.TightBounds == nil || *j.TightBounds, cols: map[string]prune.ColStats{}}
	if j.NumRecords != nil {
		n, err := strconv.ParseInt(j.NumRecords.String(), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: stats: numRecords %s", ErrMalformed, j.NumRecords)
		}
		st.NumRecords = n
	}
	st.walkStd(fields, "", j.MinValues, j.MaxValues, j.NullCount)
	return st, nil
}

func subStd(m map[string]any, k string) map[string]any {
	v, _ := m[k].(map[string]any)
	return v
}

func (st *Stats) walkStd(fields []schema.Field, prefix string, mins, maxs, nulls map[string]any) {
	for _, f := range fields {
		// Statistics are keyed by physical names (column mapping), kept by logical path.
		path, key := prefix+f.Name, f.Physical()
		if f.Type.Kind == schema.Struct {
			st.walkStd(f.Children, path+".", subStd(mins, key), subStd(maxs, key), subStd(nulls, key))
			continue
		}
		if f.Type.Kind == schema.List || f.Type.Kind == schema.Map {
			continue
		}
		c := prune.ColStats{NullCount: -1, NumValues: st.NumRecords, NaNCount: 0}
		if f.Type.Kind == schema.Float32 || f.Type.Kind == schema.Float64 {
			c.NaNCount = -1
		}
		known := false
		if n, ok := nulls[key].(json.Number); ok {
			if v, err := strconv.ParseInt(n.String(), 10, 64); err == nil && v >= 0 {
				if st.TightBounds || v == 0 || v == st.NumRecords {
					c.NullCount, known = v, true
				}
			}
		}
		if v, exact, ok := fieldBoundStd(mins[key], &f, false, st.TightBounds); ok {
			c.HasMin, c.Min, c.MinExact, known = true, v, exact, true
		}
		if v, exact, ok := fieldBoundStd(maxs[key], &f, true, st.TightBounds); ok {
			c.HasMax, c.Max, c.MaxExact, known = true, v, exact, true
		}
		if known {
			st.cols[path] = c
		}
	}
}

// fieldBoundStd is boundStd for field f, whose older files may hold a narrower type (typeWidening).
// Statistics of such files are in the type they were written with; every widening keeps them
// exact but float → double: a float file's max "0.1" is the float 0.1 (0.100000001…), above
// the double 0.1. Neither the file's type nor the writer's is known per file, so a double
// that was a float takes the wider of both readings, as an inexact boundStd.
func fieldBoundStd(raw any, f *schema.Field, upper, tight bool) (prune.Value, bool, bool) {
	v, exact, ok := boundStd(raw, f.Type, upper, tight)
	if !ok || f.Type.Kind != schema.Float64 || !f.WasFloat32() {
		return v, exact, ok
	}
	asFloat := float64(float32(v.F))
	if upper {
		return prune.FloatValue(max(v.F, asFloat)), false, true
	}
	return prune.FloatValue(min(v.F, asFloat)), false, true
}

// boundStd converts one min or max (upper) from JSON to the column's domain.
func boundStd(raw any, t schema.Type, upper, tight bool) (prune.Value, bool, bool) {
	if raw == nil {
		return prune.Value{}, false, false
	}
	num, isNum := raw.(json.Number)
	str, isStr := raw.(string)
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		if v, err := strconv.ParseInt(num.String(), 10, 64); isNum && err == nil {
			return prune.IntValue(v), tight, true
		}
	case schema.Float32, schema.Float64:
		if v, err := strconv.ParseFloat(num.String(), 64); isNum && err == nil {
			if t.Kind == schema.Float32 {
				// Writers print a float's shortest decimal ("1.1"); as a double that is not
				// the stored value (1.1f = 1.10000002384…) and a max would fall below it.
				v = float64(float32(v))
			}
			return prune.FloatValue(v), tight, true
		}
	case schema.Decimal:
		if isNum {
			if u, ok := pvalue.ParseDecimal(num.String(), t.Precision, t.Scale); ok {
				return prune.DecimalExact(u), tight, true
			}
		}
	case schema.Date:
		if d, ok := pvalue.ParseDate(str); isStr && ok {
			return prune.DateValue(d), tight, true
		}
	case schema.Timestamp:
		if !isStr {
			break
		}
		v, ok := parseTimestamp(str, t.Unit, t.UTC)
		if !ok {
			break
		}
		// Units per millisecond: a max that sits on a millisecond may have been truncated
		// from anywhere within it.
		per := map[prune.Unit]int64{prune.Micro: 1000, prune.Nano: 1e6}[t.Unit]
		if upper && per > 1 && v%per == 0 {
			if v > (1<<63-1)-per {
				break
			}
			v += per - 1
		}
		return prune.TimestampValue(v), false, true
	case schema.String:
		if !isStr {
			break
		}
		if !upper {
			return prune.StringValue(str), false, true
		}
		if s, ok := prune.PrefixSuccessor([]byte(str)); ok {
			return prune.BytesValue(s), false, true
		}
	case schema.Bool:
		if b, ok := raw.(bool); ok {
			return prune.BoolValue(b), tight, true
		}
	}
	return prune.Value{}, false, false
}

// EncodeStateStd encodes s: the magic, s as JSON, then the CRC-32 of all of it.
func EncodeStateStd(s *State) []byte {
	j, _ := json.Marshal(s) // plain structs: Marshal cannot fail
	b := append([]byte(stateMagic), j...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// DecodeStateStd decodes what EncodeStateStd wrote; anything else (truncated, altered, of another
// format, or not a state a replay can start from) is nil.
func DecodeStateStd(b []byte) *State {
	if len(b) < len(stateMagic)+4 || string(b[:len(stateMagic)]) != stateMagic {
		return nil
	}
	body := b[:len(b)-4]
	var s State
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) || json.Unmarshal(body[len(stateMagic):], &s) != nil ||
		s.Version < 0 || s.Protocol == nil || s.Metadata == nil {
		return nil
	}
	for _, f := range s.Files {
		if f.Add == nil || f.Add.Path == "" || f.Version < 0 || f.Version > s.Version {
			return nil
		}
	}
	return &s
}

// ActionsFromRowsStd converts checkpoint rows into actions. Each row is one Parquet row of a
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
func ActionsFromRowsStd(name string, rows []map[string]any) ([]Action, error) {
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
		a, ok, err := parseActionStd(b)
		if err != nil {
			return nil, fmt.Errorf("%w: %s row %d: %v", ErrMalformed, name, i, err)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}
