package iceberg

import (
	"math"
	"strings"

	"github.com/pqscan/pqscan/internal/prune"
)

// Pruning statistics from the manifest list's partition summaries (spec § Manifest Lists
// "field_summary") and from each data file's column metrics and partition values (spec §
// Manifests "data_file"), as the prune statistics of source columns by path: the table scan
// skips a file by them before its footer, as it skips a Delta file by its add stats. Anything
// unread or unknown is left out, which keeps the data.

// Metrics are a data file's column metrics by field id.
type Metrics struct {
	Lower, Upper        map[int][]byte
	Values, Nulls, NaNs map[int]int64
}

// FieldSummary is a manifest's summary of one partition field (the spec's field order).
type FieldSummary struct {
	ContainsNull bool
	ContainsNaN  *bool // nil: unknown
	Lower, Upper []byte
}

// idMap reads an Avro map keyed by field id (an array of key/value records).
func idMap[V any](x any) map[int]V {
	arr, _ := x.([]any)
	var out map[int]V
	for _, e := range arr {
		r, _ := e.(map[string]any)
		k, ok1 := r["key"].(int64)
		v, ok2 := r["value"].(V)
		if ok1 && ok2 {
			if out == nil {
				out = map[int]V{}
			}
			out[int(k)] = v
		}
	}
	return out
}

func parseMetrics(df map[string]any) Metrics {
	return Metrics{Lower: idMap[[]byte](df["lower_bounds"]), Upper: idMap[[]byte](df["upper_bounds"]),
		Values: idMap[int64](df["value_counts"]), Nulls: idMap[int64](df["null_value_counts"]), NaNs: idMap[int64](df["nan_value_counts"])}
}

func parseSummaries(x any) []FieldSummary {
	arr, _ := x.([]any)
	out := make([]FieldSummary, 0, len(arr))
	for _, e := range arr {
		r, _ := e.(map[string]any)
		s := FieldSummary{Lower: asBytes(r["lower_bound"]), Upper: asBytes(r["upper_bound"])}
		cn, ok := r["contains_null"].(bool)
		s.ContainsNull = cn || !ok // unknown: may hold nulls
		if b, ok := r["contains_nan"].(bool); ok {
			s.ContainsNaN = &b
		}
		out = append(out, s)
	}
	return out
}

func asBytes(x any) []byte { b, _ := x.([]byte); return b }

// resultType is the primitive type of a partition field of transform tr on source type p.
func resultType(tr Transform, p string) string {
	switch tr.Name {
	case "bucket", "year", "month", "hour":
		return "int"
	case "day":
		return "date"
	}
	return p
}

// partValue is an Avro-decoded partition value of primitive type p as a prune value.
func partValue(p string, x any) (prune.Value, bool) {
	t, ok := PruneType(p)
	if !ok {
		return prune.Value{}, false
	}
	switch x := x.(type) {
	case int64:
		switch t.Kind {
		case prune.Int, prune.Date, prune.Time, prune.Timestamp:
			return prune.Value{Kind: t.Kind, I: x}, true
		}
	case bool:
		return prune.BoolValue(x), t.Kind == prune.Bool
	case float32:
		return prune.FloatValue(float64(x)), t.Kind == prune.Float
	case float64:
		return prune.FloatValue(x), t.Kind == prune.Float
	case string:
		return prune.StringValue(x), t.Kind == prune.Bytes
	case []byte:
		if t.Kind == prune.Bytes || t.Kind == prune.Decimal {
			return DecodeBound(p, x) // a decimal's bytes are its big-endian unscaled value
		}
	}
	return prune.Value{}, false
}

// Pruner turns one snapshot's metadata into prune statistics: the schema's columns by field
// id and the partition specs by id.
type Pruner struct {
	Types map[string]prune.ColumnType // for prune.Bind, by column path
	byID  map[int]Column
	specs map[int64][]PartitionField
}

// NewPruner reads schema's columns and m's partition specs.
func NewPruner(m *Metadata, schema *Schema) *Pruner {
	p := &Pruner{specs: map[int64][]PartitionField{}}
	p.Types, p.byID = StatTypes(schema.Fields)
	for _, s := range m.PartitionSpecs {
		p.specs[int64(s.ID)] = s.Fields
	}
	if len(m.PartitionSpecs) == 0 {
		p.specs[0] = m.LegacyPartSpec
	}
	return p
}

// merge narrows a by b: both bound the same values, so the tighter of each holds.
func merge(a, b prune.ColStats) prune.ColStats {
	if c, ok := prune.Compare(b.Min, a.Min); b.HasMin && (!a.HasMin || ok && c > 0) {
		a.Min, a.HasMin, a.MinExact = b.Min, true, b.MinExact
	}
	if c, ok := prune.Compare(b.Max, a.Max); b.HasMax && (!a.HasMax || ok && c < 0) {
		a.Max, a.HasMax, a.MaxExact = b.Max, true, b.MaxExact
	}
	for _, f := range [][2]*int64{{&a.NullCount, &b.NullCount}, {&a.NumValues, &b.NumValues}, {&a.NaNCount, &b.NaNCount}} {
		if *f[0] < 0 {
			*f[0] = *f[1]
		}
	}
	return a
}

func unknown() prune.ColStats { return prune.ColStats{NullCount: -1, NumValues: -1, NaNCount: -1} }

func add(out map[string]prune.ColStats, path string, s prune.ColStats) {
	if old, ok := out[path]; ok {
		s = merge(old, s)
	}
	out[path] = s
}

// bucketCheck is one bucket field's constraint: its source column's bucket lies in [lo, hi].
type bucketCheck struct {
	col    Column
	n      int64
	lo, hi int64
}

// mayMatch reports whether b may hold rows whose source values' buckets lie in [lo, hi].
func (c bucketCheck) mayMatch(b *prune.Bound) bool {
	return b.MayMatchValues(c.col.Path, func(v prune.Value) bool {
		k, ok := Bucket(c.n, c.col.Prim, v)
		return ok && (k < c.lo || k > c.hi)
	})
}

// ManifestMayMatch reports whether manifest m may hold a file with a row satisfying b, by its
// partition summaries read with the spec the manifest was written with; false proves none.
func (p *Pruner) ManifestMayMatch(b *prune.Bound, m ManifestFile) bool {
	spec, ok := p.specs[m.SpecID]
	if !ok || len(m.Summaries) != len(spec) {
		return true
	}
	stats := map[string]prune.ColStats{}
	var buckets []bucketCheck
	for i, f := range spec {
		col, ok := p.byID[f.SourceID]
		if !ok {
			continue
		}
		tr, sum := ParseTransform(f.Transform), m.Summaries[i]
		rt := resultType(tr, col.Prim)
		lo, okLo := DecodeBound(rt, sum.Lower)
		hi, okHi := DecodeBound(rt, sum.Upper)
		if tr.Name == "void" || !okLo || !okHi {
			continue // no bounds: all null, or unknown
		}
		if tr.Name == "bucket" && lo.Kind == prune.Int {
			buckets = append(buckets, bucketCheck{col, tr.N, lo.I, hi.I})
			continue
		}
		s := SourceBounds(tr, col.Prim, &lo, &hi)
		if !sum.ContainsNull {
			s.NullCount = 0
		}
		if sum.ContainsNaN != nil && !*sum.ContainsNaN {
			s.NaNCount = 0
		}
		add(stats, col.Path, s)
	}
	for _, c := range buckets {
		if !c.mayMatch(b) {
			return false
		}
	}
	return b.MayMatch(func(path string) (prune.ColStats, bool) { s, ok := stats[path]; return s, ok })
}

// FileStats are data file d's statistics by column path (its metrics narrowed by its
// partition values; nil when it has none), and whether its bucket partition values leave it
// possibly matching b (b nil: nothing is decided).
func (p *Pruner) FileStats(b *prune.Bound, d DataFile) (map[string]prune.ColStats, bool) {
	out := map[string]prune.ColStats{}
	m := d.Metrics
	for id, col := range p.byID {
		s := unknown()
		if lb, ok := DecodeBound(col.Prim, m.Lower[id]); ok && m.Lower[id] != nil {
			s.Min, s.HasMin = lb, true
		}
		if ub, ok := DecodeBound(col.Prim, m.Upper[id]); ok && m.Upper[id] != nil {
			s.Max, s.HasMax = ub, true
		}
		for _, f := range [][2]any{{&s.NullCount, m.Nulls}, {&s.NumValues, m.Values}, {&s.NaNCount, m.NaNs}} {
			if v, ok := f[1].(map[int]int64)[id]; ok && v >= 0 {
				*f[0].(*int64) = v
			}
		}
		if s.HasMin || s.HasMax || s.NullCount >= 0 || s.NumValues >= 0 {
			out[col.Path] = s
		}
	}
	keep := true
	for _, f := range p.specs[d.SpecID] {
		col, ok := p.byID[f.SourceID]
		raw, has := d.Partition[f.Name]
		tr := ParseTransform(f.Transform)
		if !ok || !has || tr.Name == "void" {
			continue
		}
		s := unknown()
		if raw == nil { // a null partition value: every source value is null
			s.NullCount, s.NumValues = d.Records, d.Records
			add(out, col.Path, s)
			continue
		}
		v, ok := partValue(resultType(tr, col.Prim), raw)
		switch {
		case !ok || v.Kind == prune.Float && math.IsNaN(v.F):
			continue
		case tr.Name == "bucket":
			if b != nil && v.Kind == prune.Int && !(bucketCheck{col, tr.N, v.I, v.I}).mayMatch(b) {
				keep = false
			}
			continue
		}
		s = SourceBounds(tr, col.Prim, &v, &v)
		s.NullCount = 0
		if tr.Name == "identity" {
			s.NaNCount = 0
		}
		add(out, col.Path, s)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, keep
}

// Identity is the value of each top-level column of data file d that an identity partition
// field of its spec has (nil: a null value), by column name: a column the file was written
// without reads as it in every row (spec § Column Projection). Nested columns and values
// this reader cannot type are left out: they read as null.
func (p *Pruner) Identity(d DataFile) map[string]*prune.Value {
	var out map[string]*prune.Value
	for _, f := range p.specs[d.SpecID] {
		col, ok := p.byID[f.SourceID]
		raw, has := d.Partition[f.Name]
		if !ok || !has || f.Transform != "identity" || strings.Contains(col.Path, ".") {
			continue
		}
		var v *prune.Value
		if raw != nil {
			x, ok := partValue(col.Prim, raw)
			if !ok {
				continue
			}
			v = &x
		}
		if out == nil {
			out = map[string]*prune.Value{}
		}
		out[col.Path] = v
	}
	return out
}
