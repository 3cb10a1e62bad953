package icebergsession

import (
	"encoding/hex"
	"sort"
	"strconv"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// The session's result: the data files as the table session's options (tablescan.File: where,
// how big, how many live rows, statistics, deleted rows, filled columns).

// snapshotOf is the snapshot of the data files, with their deleted rows (nil: none).
func (s *Session) snapshotOf(data []iceberg.DataFile, deleted [][]int64) (*deltasession.Snapshot, error) {
	pr, _ := s.pruner()
	names, err := s.meta.NameMapping()
	if err != nil {
		return nil, errf.Errorf("%s: %w", s.mpath, err)
	}
	out := &deltasession.Snapshot{Paths: []string{}, Metadata: s.mpath, Table: tablescan.Options{Files: []tablescan.File{}, Table: s.fields, NoHive: true, StatTypes: pr.Types, NameMapping: names}}
	if s.snap != nil {
		out.Version = s.snap.ID
	}
	for i, f := range data {
		if f.Format != "PARQUET" {
			return nil, errf.Errorf("%w: data file %s is %s (only Parquet is read)", iceberg.ErrUnsupportedFeature, f.Path, f.Format)
		}
		at, abs, err := iceberg.LocateMapped(s.meta.Location, f.Path, s.opts.PathMap)
		if err != nil {
			return nil, err
		}
		fp := pathenc.EscapePath(at)
		if abs {
			// Kept as written, for the host to resolve and check against its scope.
			for len(out.Absolute) < len(out.Paths) {
				out.Absolute = append(out.Absolute, false)
			}
			out.Absolute = append(out.Absolute, true)
			fp = at
		}
		out.Paths = append(out.Paths, at)
		out.Partitions = append(out.Partitions, partitionText(f.Partition))
		tf := tablescan.File{Path: fp, Size: f.Size, Rows: f.Records, Stats: s.stats[i], Fill: fillValues(pr.Identity(f), s.defaults)}
		if i < len(deleted) && len(deleted[i]) > 0 {
			tf.Deleted = deleted[i]
			for j := 0; j < len(tf.Deleted); j += 2 {
				tf.Rows -= tf.Deleted[j+1] - tf.Deleted[j]
			}
		}
		out.Table.Files = append(out.Table.Files, tf)
	}
	return out, nil
}

// partitionText is a file's partition values as "name=value/…" in name order.
func partitionText(p map[string]any) string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for i, n := range names {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(append(b, n...), '=')
		switch v := p[n].(type) {
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case string:
			b = append(b, v...)
		case []byte:
			b = hex.AppendEncode(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case float64:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		case float32:
			b = strconv.AppendFloat(b, float64(v), 'g', -1, 32)
		default:
			b = append(b, "null"...)
		}
	}
	return string(b)
}

// fillValues are the values a data file's missing columns read as (tablescan.File.Fill;
// nil: none): its identity partition values, else the columns' initial-defaults (spec §
// Column Projection; the name mapping comes between them, in the table scan, which fills
// only a column the file lacks after it).
func fillValues(id map[string]*prune.Value, defaults map[string]prune.Value) map[string]hive.Value {
	if len(id) == 0 && len(defaults) == 0 {
		return nil
	}
	out := make(map[string]hive.Value, len(id)+len(defaults))
	for c, v := range defaults {
		out[c] = hive.Value{V: v}
	}
	for c, v := range id {
		if v == nil {
			out[c] = hive.Value{Null: true}
		} else {
			out[c] = hive.Value{V: *v}
		}
	}
	return out
}
