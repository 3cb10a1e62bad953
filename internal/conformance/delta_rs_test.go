package conformance

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// deltaOracle computes a Delta table's rows independently of the code under test: the
// snapshot is replayed from the JSON commits alone (every commit is kept in the testdata, so
// no checkpoint Parquet is read), each live file is read with arrow-go, and the partition
// values are appended from the log.
func deltaOracle(t *testing.T, dir string) []string { return deltaOracleAt(t, dir, -1) }

// deltaOracleAt is deltaOracle at a version (-1: the latest).
func deltaOracleAt(t *testing.T, dir string, version int64) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "_delta_log"))
	require.NoError(t, err)
	r := delta.NewReplay()
	for _, e := range ents {
		lf, ok := delta.ParseLogName(e.Name())
		if !ok || lf.Kind != delta.KindCommit || version >= 0 && lf.Version > version {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "_delta_log", e.Name()))
		require.NoError(t, err)
		acts, err := delta.ParseCommit(e.Name(), b)
		require.NoError(t, err)
		require.NoError(t, r.Commit(lf.Version, acts))
	}
	snap, err := r.Snapshot()
	require.NoError(t, err)
	var out []string
	for _, f := range snap.Files {
		var extra []string
		for c, pc := range snap.PartitionColumns {
			extra = append(extra, pc.Name+"="+oracleValue(t, f.Partition[c]))
		}
		rows := oracleTableWith(t, filepath.Join(dir, filepath.FromSlash(f.Path)), extra)
		if dv := f.DeletionVector; dv != nil {
			gone := oracleDeleted(t, dir, dv)
			kept := rows[:0]
			for i, r := range rows {
				if !gone.Contains(uint64(i)) {
					kept = append(kept, r)
				}
			}
			require.Equal(t, uint64(len(rows)-len(kept)), gone.GetCardinality())
			rows = kept
		}
		out = append(out, rows...)
	}
	return out
}

// oracleDeleted reads a stored deletion vector with the reference Roaring implementation
// (the framing by hand: size, then the magic and the bitmap); only "u" vectors, the kind the
// shared tables hold.
func oracleDeleted(t *testing.T, dir string, dv *delta.DeletionVector) *roaring64.Bitmap {
	t.Helper()
	require.Equal(t, "u", dv.StorageType)
	p, err := dv.Path()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	require.NoError(t, err)
	off := int64(1)
	if dv.Offset != nil {
		off = int64(*dv.Offset)
	}
	size := int64(binary.BigEndian.Uint32(b[off:]))
	bm := roaring64.New()
	_, err = bm.ReadFrom(bytes.NewReader(b[off+8 : off+4+size]))
	require.NoError(t, err)
	return bm
}

// oracleValue renders a partition value as canonValue renders its column.
func oracleValue(t *testing.T, v hive.Value) string {
	if v.Null {
		return "null"
	}
	switch v.V.Kind {
	case prune.Bytes:
		b, _ := json.Marshal(string(v.V.B))
		return string(b)
	case prune.Int:
		return strconv.FormatInt(v.V.I, 10)
	}
	t.Fatalf("oracle: partition value of kind %v", v.V.Kind)
	return ""
}

// Test_deltaRS reads each delta-rs table: equal to the oracle, or refused naming the feature.
func Test_deltaRS(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs")
	refused := map[string]struct {
		err  error
		text string
	}{
		// The log's latest files are not shipped (delta-rs tests only read its log): the
		// missing file is named.
		"with_checkpoint_no_last_checkpoint": {delta.ErrMissingFile, "part-00000-70b1dcdf"},
	}
	// arrow-go cannot read INT96 past 2262 (nanoseconds); these rows are the files' single-row
	// statistics in the log.
	byHand := map[string][]string{
		"table_with_edge_timestamps": {
			"BIG_DATE=9999-12-31T00:00:00Z|NORMAL_DATE=2022-01-01T00:00:00Z|SOME_VALUE=1",
			"BIG_DATE=9999-12-30T00:00:00Z|NORMAL_DATE=2022-02-01T00:00:00Z|SOME_VALUE=2",
		},
		// Column mapping (name mode): the files name the columns by physical names (the
		// oracle's arrow-go would too), and the partition column is keyed by one in the log.
		"table_with_column_mapping": {
			`Company Very Short="BME"|Super Name="Timothy Lamb"`,
			`Company Very Short="BMS"|Super Name="Mr. Daniel Ferguson MD"`,
			`Company Very Short="BMS"|Super Name="Stephanie Mcgrath"`,
			`Company Very Short="BMS"|Super Name="Anthony Johnson"`,
			`Company Very Short="BMS"|Super Name="Nathan Bennett"`,
		},
	}
	ents, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Equal(t, 14, len(ents))
	for _, e := range ents {
		dir := filepath.Join(root, e.Name())
		got, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
		if want, ok := refused[e.Name()]; ok {
			require.ErrorIs(t, err, want.err, e.Name())
			require.ErrorContains(t, err, want.text, e.Name())
			continue
		}
		require.NoError(t, err, e.Name())
		want, ok := byHand[e.Name()]
		if !ok {
			want = deltaOracle(t, dir)
		}
		sameRows(t, e.Name(), got, want)
	}
}
