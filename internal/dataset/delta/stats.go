package delta

import (
	"strconv"

	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/prune"
)

// Stats is an add action's per-file statistics (PROTOCOL.md "Per-file Statistics"), parsed
// once into prune's form so that file skipping uses the same evaluator and safety rules as
// row-group statistics:
//
//   - absent or unparseable statistics, or a column without an entry, are unknown (keep);
//   - string bounds may be prefixes cut at a fixed length ("String columns are cut off at a
//     fixed prefix length"), so a string min is an inexact lower bound, and the max is
//     replaced by the smallest string above every string with that prefix (the prefix with
//     its last byte incremented), an inexact upper bound that holds whether or not the
//     writer truncated;
//   - timestamp bounds are truncated to milliseconds ("Timestamp columns are truncated down
//     to milliseconds"): a millisecond-aligned max gets +999 µs, both bounds are inexact;
//   - with tightBounds=false (deletion vectors) a nullCount other than 0 or numRecords
//     carries no information and becomes unknown;
//   - float bounds never say whether NaN is present (NaNCount unknown), and float (32-bit)
//     bounds are rounded to float32 first, which is the value the file stores;
//   - binary and nested columns have no bounds.
type Stats struct {
	NumRecords  int64 // -1 when absent
	TightBounds bool
	cols        map[string]prune.ColStats
}

// Column returns the statistics of a data column by dotted path ("a.b").
func (s *Stats) Column(path string) (prune.ColStats, bool) {
	if s == nil {
		return prune.ColStats{}, false
	}
	c, ok := s.cols[path]
	return c, ok
}

// ParseStats parses an add's stats string against the table's data columns. The first JSON
// value of s is read and what follows it ignored, as a stream decoder reads it (writers do
// not add any; earlier readers here took such stats). Numbers keep their text: an integer
// bound beyond float64's precision stays exact.
func ParseStats(s string, fields []schema.Field) (*Stats, error) {
	v, _, err := jsonv.ParseFirst([]byte(s))
	if err != nil {
		return nil, errf.Errorf("%w: stats: %v", ErrMalformed, err)
	}
	o := jsonv.NewObj(&v, "stats")
	nr := o.Get("numRecords")
	tight, hasTight := o.OptBool("tightBounds")
	mins, maxs, nulls := statsMap(o, "minValues"), statsMap(o, "maxValues"), statsMap(o, "nullCount")
	if nr != nil && nr.Kind != jsonv.Number && (nr.Kind != jsonv.String || !isNumber(nr.S)) {
		o.Fail("numRecords", "a number", nr.Kind)
	}
	if err := o.Err(); err != nil {
		return nil, errf.Errorf("%w: %v", ErrMalformed, err)
	}
	st := &Stats{NumRecords: -1, TightBounds: !hasTight || tight, cols: map[string]prune.ColStats{}}
	if nr != nil {
		text := string(nr.Raw)
		if nr.Kind == jsonv.String {
			// A number written as a string, which a reader of numbers as their text takes.
			text = nr.S
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n < 0 {
			return nil, errf.Errorf("%w: stats: numRecords %s", ErrMalformed, text)
		}
		st.NumRecords = n
	}
	st.walk(fields, "", mins, maxs, nulls)
	return st, nil
}

// isNumber reports whether s is a JSON number and nothing else.
func isNumber(s string) bool {
	v, err := jsonv.Parse([]byte(s))
	return err == nil && v.Kind == jsonv.Number && len(v.Raw) == len(s)
}

// statsMap is member key of the stats, an object of columns (nil when absent or null).
func statsMap(o *jsonv.Obj, key string) members {
	m := o.Get(key)
	if m != nil && m.Kind != jsonv.Object {
		o.Fail(key, "an object", m.Kind)
		return members{}
	}
	return index(m)
}

// members looks up an object's members by name; a wide table's statistics have a member per
// column, looked up once each, so past a few members they are indexed.
type members struct {
	v *jsonv.Value
	m map[string]*jsonv.Value
}

func index(v *jsonv.Value) members {
	if v == nil || v.Kind != jsonv.Object {
		return members{}
	}
	ms := members{v: v}
	if len(v.Keys) > 8 {
		ms.m = make(map[string]*jsonv.Value, len(v.Keys))
		for i, k := range v.Keys {
			ms.m[k] = &v.Vals[i] // a repeated key's last value wins
		}
	}
	return ms
}

// get is member k, nil when absent or null.
func (ms members) get(k string) *jsonv.Value {
	var v *jsonv.Value
	if ms.m != nil {
		v = ms.m[k]
	} else {
		v = ms.v.Get(k)
	}
	if v.IsNull() {
		return nil
	}
	return v
}

func (st *Stats) walk(fields []schema.Field, prefix string, mins, maxs, nulls members) {
	for _, f := range fields {
		// Statistics are keyed by physical names (column mapping), kept by logical path.
		path, key := prefix+f.Name, f.Physical()
		if f.Type.Kind == schema.Struct {
			st.walk(f.Children, path+".", index(mins.get(key)), index(maxs.get(key)), index(nulls.get(key)))
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
		if n := nulls.get(key); n != nil && n.Kind == jsonv.Number {
			if v, err := strconv.ParseInt(string(n.Raw), 10, 64); err == nil && v >= 0 {
				if st.TightBounds || v == 0 || v == st.NumRecords {
					c.NullCount, known = v, true
				}
			}
		}
		if v, exact, ok := fieldBound(mins.get(key), &f, false, st.TightBounds); ok {
			c.HasMin, c.Min, c.MinExact, known = true, v, exact, true
		}
		if v, exact, ok := fieldBound(maxs.get(key), &f, true, st.TightBounds); ok {
			c.HasMax, c.Max, c.MaxExact, known = true, v, exact, true
		}
		if known {
			st.cols[path] = c
		}
	}
}

// fieldBound is bound for field f, whose older files may hold a narrower type (typeWidening).
// Statistics of such files are in the type they were written with; every widening keeps them
// exact but float → double: a float file's max "0.1" is the float 0.1 (0.100000001…), above
// the double 0.1. Neither the file's type nor the writer's is known per file, so a double
// that was a float takes the wider of both readings, as an inexact bound.
func fieldBound(raw *jsonv.Value, f *schema.Field, upper, tight bool) (prune.Value, bool, bool) {
	v, exact, ok := bound(raw, f.Type, upper, tight)
	if !ok || f.Type.Kind != schema.Float64 || !f.WasFloat32() {
		return v, exact, ok
	}
	asFloat := float64(float32(v.F))
	if upper {
		return prune.FloatValue(max(v.F, asFloat)), false, true
	}
	return prune.FloatValue(min(v.F, asFloat)), false, true
}

// bound converts one min or max (upper) from JSON to the column's domain.
func bound(raw *jsonv.Value, t schema.Type, upper, tight bool) (prune.Value, bool, bool) {
	if raw == nil {
		return prune.Value{}, false, false
	}
	isNum, isStr := raw.Kind == jsonv.Number, raw.Kind == jsonv.String
	num, str := "", raw.S
	if isNum {
		num = string(raw.Raw)
	}
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		if v, err := strconv.ParseInt(num, 10, 64); isNum && err == nil {
			return prune.IntValue(v), tight, true
		}
	case schema.Float32, schema.Float64:
		if v, err := strconv.ParseFloat(num, 64); isNum && err == nil {
			if t.Kind == schema.Float32 {
				// Writers print a float's shortest decimal ("1.1"); as a double that is not
				// the stored value (1.1f = 1.10000002384…) and a max would fall below it.
				v = float64(float32(v))
			}
			return prune.FloatValue(v), tight, true
		}
	case schema.Decimal:
		if isNum {
			if u, ok := pvalue.ParseDecimal(num, t.Precision, t.Scale); ok {
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
		if raw.Kind == jsonv.Bool {
			return prune.BoolValue(raw.B), tight, true
		}
	}
	return prune.Value{}, false, false
}

// parseTimestamp parses a partition value or a statistic of timestamp column t. A column
// without zone also takes a bare date, as midnight: a date column widened to timestamp_ntz
// (typeWidening) keeps the values its older files were written with.
func parseTimestamp(s string, unit prune.Unit, utc bool) (int64, bool) {
	if v, ok := pvalue.ParseTimestampUnit(s, unit); ok {
		return v, true
	}
	if _, ok := pvalue.ParseDate(s); utc || !ok {
		return 0, false
	}
	return pvalue.ParseTimestampUnit(s+" 00:00:00", unit)
}
