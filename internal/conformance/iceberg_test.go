package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// icebergRefused are the corpus tables this reader refuses, with what the error names.
var icebergRefused = map[string]string{}

// Test_icebergCorpus: every Iceberg test table reads, opened on its folder and on its
// metadata file, the rows icebird (the corpus's oracle) reads, as a multiset, with their
// position deletes, deletion vectors and equality deletes applied. opts.Engine is the
// native engine here.
func Test_icebergCorpus(t *testing.T) {
	testIcebergCorpus(t, pqscan.Options{})
}

func testIcebergCorpus(t *testing.T, opts pqscan.Options) {
	ctx := context.Background()
	dir := filepath.Join(testcorpus.Dir(t), "iceberg")
	for _, row := range testcorpus.IcebergTables(t) {
		name := row["name"]
		root := filepath.Join(dir, "tables", name, row["table_root"])
		for _, src := range []string{root + "/", filepath.Join(root, "metadata", row["metadata_file"])} {
			ds, err := pqscan.OpenDataset(ctx, []string{src}, opts)
			if what, ok := icebergRefused[name]; ok {
				require.True(t, errors.Is(err, pqscan.ErrUnsupportedFeature) || opts.Engine != nil && err != nil, name, err)
				require.ErrorContains(t, err, what, name)
				continue
			}
			require.NoError(t, err, name)
			got := datasetRows(t, ds)
			ds.Close()
			want := icebirdRows(t, filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.current.jsonl"))
			require.Equal(t, want, got, name, src)
		}
	}
}

// datasetRows reads every row of ds as canonical JSON (canonValue), sorted.
func datasetRows(t *testing.T, ds *pqscan.Dataset) []string {
	t.Helper()
	return datasetRowsWhere(t, ds, pqscan.ScanOptions{})
}

// datasetRowsWhere is datasetRows of the scan so.
func datasetRowsWhere(t *testing.T, ds *pqscan.Dataset, so pqscan.ScanOptions) []string {
	t.Helper()
	out := orderedRows(t, ds, so)
	sort.Strings(out)
	return out
}

// arrowCanon is value i of a as the oracle's values canonicalize (oracleCanon): numbers as
// their shortest decimal text, decimals with their scale, dates as YYYY-MM-DD, times and
// timestamps as microseconds, bytes as hex, UUIDs in their 8-4-4-4-12 form.
func arrowCanon(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case array.ExtensionArray:
		return arrowCanon(a.Storage(), i)
	case *array.Null:
		return nil
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 64)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return hex.EncodeToString(a.Value(i))
	case *array.FixedSizeBinary:
		b := a.Value(i)
		if len(b) == 16 {
			h := hex.EncodeToString(b)
			return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
		return hex.EncodeToString(b)
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Time64:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Timestamp:
		u := a.DataType().(*arrow.TimestampType).Unit
		return strconv.FormatInt(a.Value(i).ToTime(u).UnixMicro(), 10)
	case *array.Map:
		m := map[string]any{}
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			m[fmt.Sprint(arrowCanon(a.Keys(), int(j)))] = arrowCanon(a.Items(), int(j))
		}
		return m
	case *array.List:
		var out []any
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			out = append(out, arrowCanon(a.ListValues(), int(j)))
		}
		return out
	case *array.Struct:
		m := map[string]any{}
		for k, f := range a.DataType().(*arrow.StructType).Fields() {
			m[f.Name] = arrowCanon(a.Field(k), i)
		}
		return m
	}
	return fmt.Sprintf("unhandled %s", a.DataType())
}

// icebirdRows reads an oracle's rows as canonical JSON (oracleCanon), sorted. With cols, the
// row keys not among them are dropped, and must be null: the oracle reads an older snapshot
// with the table's current schema, pqscan with the snapshot's own (and the v3 row lineage
// columns it adds are not read).
func icebirdRows(t *testing.T, path string, cols ...string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var v any
		require.NoError(t, d.Decode(&v))
		if m, ok := v.(map[string]any); ok {
			// v3 row lineage columns are metadata columns: the oracle adds them.
			delete(m, "_row_id")
			delete(m, "_last_updated_sequence_number")
			for k, x := range m {
				if cols != nil && !slices.Contains(cols, k) {
					require.True(t, x == nil, path, k, "is not in the snapshot's schema but not null:", x)
					delete(m, k)
				}
			}
		}
		js, err := json.Marshal(oracleCanon(t, v))
		require.NoError(t, err)
		out = append(out, string(js))
	}
	sort.Strings(out)
	return out
}

func oracleCanon(t *testing.T, v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		f, err := v.Float64()
		require.NoError(t, err)
		return strconv.FormatFloat(f, 'g', -1, 64)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = oracleCanon(t, e)
		}
		return out
	case map[string]any:
		if len(v) == 1 {
			for k, x := range v {
				s, _ := x.(string)
				switch k {
				case "$dec":
					return s
				case "$hex":
					return s
				case "$date":
					return s[:10]
				case "$ts":
					ts, err := time.Parse(time.RFC3339Nano, s)
					require.NoError(t, err)
					return strconv.FormatInt(ts.UnixMicro(), 10)
				}
			}
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = oracleCanon(t, x)
		}
		return out
	}
	return v
}
