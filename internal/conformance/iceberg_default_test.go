package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_icebergInitialDefault: columns added with an initial-default (v3 default values) read
// as it in every row of the files written before them (spec § Default values), and so do
// filters, count and min/max; a default on a column the file has changes nothing. The
// corpus table's current metadata is rewritten with the columns added, so the expected rows
// are the table's rows with the defaults, by construction.
func Test_icebergInitialDefault(t *testing.T) {
	ctx := context.Background()
	root := copyIcebergTable(t, "lithium__no_partitioning")
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	before := datasetRows(t, ds)
	ds.Close()
	require.True(t, len(before) > 0)

	added := []struct {
		name, typ, def string
		canon          any // the column's value as datasetRows writes it
	}{
		{"d_bool", "boolean", `true`, true},
		{"d_int", "int", `-7`, "-7"},
		{"d_long", "long", `9007199254740993`, "9007199254740993"},
		{"d_float", "float", `1.5`, "1.5"},
		{"d_double", "double", `"NaN"`, "NaN"},
		{"d_dec", "decimal(9,2)", `"14.20"`, "14.20"},
		{"d_date", "date", `"2017-11-16"`, "2017-11-16"},
		{"d_time", "time", `"22:31:08.123456"`, "81068123456"},
		{"d_ts", "timestamp", `"2017-11-16T22:31:08.123456"`, "1510871468123456"},
		{"d_tstz", "timestamptz", `"2017-11-16T23:31:08.123456+01:00"`, "1510871468123456"},
		{"d_str", "string", `"iceberg"`, "iceberg"},
		{"d_bin", "binary", `"00ff"`, "00ff"},
		{"d_none", "string", `null`, nil},
	}
	addDefaults(t, root, func(fields []any) []any {
		fields[0].(map[string]any)["initial-default"] = 123456 // c1 is in the file: its values win
		for i, a := range added {
			fields = append(fields, map[string]any{"id": 100 + i, "name": a.name, "required": false, "type": a.typ, "initial-default": json.RawMessage(a.def)})
		}
		return fields
	})
	var want []string
	for _, r := range before {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(r), &m))
		for _, a := range added {
			m[a.name] = a.canon
		}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		want = append(want, string(b))
	}
	sort.Strings(want)

	for _, eng := range []struct {
		name string
		o    pqscan.Options
	}{{name: "native"}, {name: "wasm", o: pqscan.Options{Engine: wasmHost(t)}}} {
		t.Run(eng.name, func(t *testing.T) {
			ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, eng.o)
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, want, datasetRows(t, ds))
			for _, tc := range []struct {
				where string
				all   bool
			}{
				{"d_int = -7 AND d_str = 'iceberg' AND d_dec = 14.20", true},
				{"d_date = DATE '2017-11-16' AND d_ts = TIMESTAMP '2017-11-16 22:31:08.123456'", true},
				{"d_long = 9007199254740993 AND d_bool = TRUE AND d_none IS NULL", true},
				{"d_int > -7", false},
				{"d_str <> 'iceberg'", false},
				{"c1 = 123456", false},
			} {
				got := datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: tc.where})
				n, _, err := ds.Count(ctx, pqscan.ScanOptions{Where: tc.where})
				require.NoError(t, err, tc.where)
				if tc.all {
					require.Equal(t, want, got, tc.where)
					require.Equal(t, int64(len(want)), n, tc.where)
				} else {
					require.Equal(t, 0, len(got), tc.where)
					require.Equal(t, int64(0), n, tc.where)
				}
			}
			// Ordered by a filled column (ties broken by c1, which the file has), with and
			// without a limit: the same rows in the same order as sorted here.
			for _, limit := range []int64{0, 2} {
				got := orderedRows(t, ds, pqscan.ScanOptions{OrderBy: "d_long DESC, c1 NULLS FIRST", Limit: limit})
				n := int64(len(want))
				if limit > 0 {
					n = limit
				}
				require.Equal(t, int(n), len(got))
				if limit == 0 {
					require.Equal(t, want, sortedCopy(got))
				}
				last := int64(-1 << 62) // c1 of the row before; nulls come first
				for _, r := range got {
					var m struct{ C1 *string }
					require.NoError(t, json.Unmarshal([]byte(r), &m))
					if m.C1 != nil {
						c1, err := strconv.ParseInt(*m.C1, 10, 64)
						require.NoError(t, err)
						require.True(t, c1 >= last, got)
						last = c1
					} else {
						require.True(t, last == -1<<62, got)
					}
				}
			}
			for _, w := range []string{"", "d_int = -7", "c3 IS NULL OR c3 IS NOT NULL"} {
				rec, _, err := ds.MinMax(ctx, "d_int", pqscan.ScanOptions{Where: w})
				require.NoError(t, err, w)
				require.Equal(t, []any{"-7", "-7"}, []any{arrowCanon(rec.Column(0), 0), arrowCanon(rec.Column(1), 0)}, w)
				rec.Release()
			}
		})
	}
}

// addDefaults rewrites the current schema of the table at root (its newest metadata file)
// with edit applied to its fields.
func addDefaults(t *testing.T, root string, edit func([]any) []any) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "metadata", "*.metadata.json"))
	require.NoError(t, err)
	sort.Strings(files)
	p := files[len(files)-1]
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	require.NoError(t, d.Decode(&m))
	cur, _ := m["current-schema-id"].(json.Number).Int64()
	for _, s := range m["schemas"].([]any) {
		s := s.(map[string]any)
		if id, _ := s["schema-id"].(json.Number).Int64(); id == cur {
			s["fields"] = edit(s["fields"].([]any))
		}
	}
	m["last-column-id"] = 1000
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o644))
}

// orderedRows reads the rows of the scan so as canonical JSON (canonValue), in the order they
// come.
func orderedRows(t *testing.T, ds *pqscan.Dataset, so pqscan.ScanOptions) []string {
	t.Helper()
	out, err := orderedRowsErr(t, ds, so)
	require.NoError(t, err)
	return out
}

// orderedRowsErr is orderedRows returning the scan's error.
func orderedRowsErr(t *testing.T, ds *pqscan.Dataset, so pqscan.ScanOptions) ([]string, error) {
	t.Helper()
	r, err := ds.Scan(context.Background(), so)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			m := map[string]any{}
			for c, f := range rec.Schema().Fields() {
				m[f.Name] = arrowCanon(rec.Column(c), i)
			}
			b, err := json.Marshal(m)
			require.NoError(t, err)
			out = append(out, string(b))
		}
		rec.Release()
	}
}
