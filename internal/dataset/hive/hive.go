// Package hive reads Hive-style partition columns from dataset paths
// (`event_date=2024-01-01/tenant=7/part-0.parquet`) and types them, so that a predicate on
// them is answered before any footer is fetched (Polars' hive.rs; DESIGN.md §7).
//
// Keys and values are percent-decoded once (Spark escapes '/', '=', '%', control characters
// and a few others in both); `__HIVE_DEFAULT_PARTITION__` and an empty value are null. Only
// directory segments count (the file name never does), and a directory segment without '='
// is not a partition. Every file must carry the same keys in the same order, or the files do
// not form one table and Resolve names the first file that differs.
//
// Values are typed by a user schema where it names the column, else by pvalue.Infer over all
// non-null values of the column (int64, date, timestamp, else string). They are prune.Values,
// so prune's evaluator over statistics can prove that a file cannot match: Stats presents a
// file's partition values as exact single-value statistics.
package hive

import (
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
)

// DefaultPartition is the directory value Hive and Spark write for a null partition value.
const DefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// Segment is one `key=value` directory of a path, decoded.
type Segment struct {
	Key   string
	Value string // decoded; "" when Null
	Null  bool
}

// ParsePath returns the partition segments of rel, a slash-separated path relative to the
// dataset root (a key with the root's prefix removed). The last segment is the file name and
// never a partition.
func ParsePath(rel string) []Segment {
	dirs := strings.Split(rel, "/")
	dirs = dirs[:len(dirs)-1]
	var out []Segment
	for _, d := range dirs {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			continue
		}
		s := Segment{Key: pathenc.Unescape(k), Value: pathenc.Unescape(v)}
		if v == DefaultPartition || v == "" {
			s.Value, s.Null = "", true
		}
		out = append(out, s)
	}
	return out
}

// Column is a partition column: its name and the type its values were given.
type Column struct {
	Name string
	Type prune.ColumnType
}

// Value is a typed partition value; Null means the file's rows all hold null in the column.
type Value struct {
	V    prune.Value
	Null bool
}

// Options control Resolve.
type Options struct {
	// Schema types the columns it names; a column it does not name is inferred. A name in
	// Schema that is not a partition key is ignored (it may be a file column).
	Schema []Column
}

// Partitions is the partition table of a dataset: its columns and, per file in the order
// given, one Value per column.
type Partitions struct {
	Columns []Column
	Values  [][]Value
}

// Resolve parses, checks and types the partitions of every path (relative to the dataset
// root, in dataset order). Paths without any partition segment in a dataset of such paths give
// a Partitions with no columns.
func Resolve(paths []string, opts Options) (*Partitions, error) {
	segs := make([][]Segment, len(paths))
	for i, p := range paths {
		segs[i] = ParsePath(p)
		seen := map[string]bool{}
		for _, s := range segs[i] {
			if seen[s.Key] {
				return nil, errf.Errorf("%w: %q in %s", ErrDuplicateKey, s.Key, p)
			}
			seen[s.Key] = true
		}
		if i > 0 && !sameKeys(segs[0], segs[i]) {
			return nil, errf.Errorf("%w: %s has keys %s, %s has %s", ErrInconsistent, p, keyList(segs[i]), paths[0], keyList(segs[0]))
		}
	}
	out := &Partitions{Values: make([][]Value, len(paths))}
	if len(paths) == 0 {
		return out, nil
	}
	for c, s := range segs[0] {
		col := Column{Name: s.Key}
		given := false
		for _, sc := range opts.Schema {
			if sc.Name == s.Key {
				col.Type, given = sc.Type, true
			}
		}
		if !given {
			var vals []string
			for _, fs := range segs {
				if !fs[c].Null {
					vals = append(vals, fs[c].Value)
				}
			}
			col.Type = pvalue.Infer(vals)
		}
		out.Columns = append(out.Columns, col)
	}
	for i, fs := range segs {
		row := make([]Value, len(fs))
		for c, s := range fs {
			if s.Null {
				row[c] = Value{Null: true}
				continue
			}
			v, err := pvalue.Parse(s.Value, out.Columns[c].Type)
			if err != nil {
				return nil, errf.Errorf("%w: %s: key %q: %w", ErrValue, paths[i], s.Key, err)
			}
			row[c] = Value{V: v}
		}
		out.Values[i] = row
	}
	return out, nil
}

func sameKeys(a, b []Segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}

func keys(s []Segment) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.Key
	}
	return out
}

// Column returns the index of the named partition column, or -1.
func (p *Partitions) Column(name string) int {
	for i, c := range p.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// ColStats presents one partition value as statistics over a file: every row holds exactly v
// (MinExact/MaxExact: it is an actual value), or every row is null. The row count is unknown
// before the footer, so an all-null column uses the "any equal non-negative pair" form that
// prune.ColStats documents.
func ColStats(v Value) prune.ColStats {
	if v.Null {
		return prune.ColStats{NullCount: 1, NumValues: 1, NaNCount: 0}
	}
	return prune.ColStats{HasMin: true, HasMax: true, Min: v.V, Max: v.V, MinExact: true, MaxExact: true,
		NullCount: 0, NumValues: -1, NaNCount: 0}
}

// Stats returns the statistics lookup prune.Bound.MayMatch takes, for file i: partition
// columns answer, any other column is unknown (false), so a predicate that also names file
// columns is still evaluated safely.
func (p *Partitions) Stats(i int) func(path string) (prune.ColStats, bool) {
	return func(path string) (prune.ColStats, bool) {
		c := p.Column(path)
		if c < 0 || i < 0 || i >= len(p.Values) {
			return prune.ColStats{}, false
		}
		return ColStats(p.Values[i][c]), true
	}
}

// keyList is a segment list's keys as fmt prints a []string ("[a b]").
func keyList(segs []Segment) string { return "[" + strings.Join(keys(segs), " ") + "]" }
