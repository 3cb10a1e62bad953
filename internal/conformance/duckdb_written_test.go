package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// TestDuckDBWritten: DuckDB as a writer. duckdb/write.mjs writes one table covering DuckDB's
// types (3,000 rows, nulls in every column) six ways: format v1 and v2 (DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT pages), every codec DuckDB writes, small row
// groups, no dictionaries. DuckDB's reading of its own files (duckdb/dump.mjs) is the oracle:
// pqscan, natively and in the wasm module (wazero), must read every file and agree on every
// value (no difference is listed).
func TestDuckDBWritten(t *testing.T) {
	node := testcorpus.DuckNode(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, testcorpus.DuckScript("write.mjs"), dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("write.mjs: %v", err)
	}
	files := strings.Fields(string(out))
	if len(files) < 6 {
		t.Fatalf("write.mjs wrote %d files", len(files))
	}
	used := map[string]bool{}
	var values int
	h := wasmHost(t) // each file through the wasm module too
	duckDumpEach(t, node, dir, files, func(d duckFile) {
		if d.Error != "" {
			t.Errorf("%s: DuckDB cannot read its own file: %s", d.File, d.Error)
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, d.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
			res, err := scanBytes(data, pqscan.Options{Engine: e}, pqscan.ScanOptions{}, corpusTimeout)
			if err != nil {
				t.Errorf("%s (%T): %v", d.File, e, err)
				return
			}
			n, _, msgs := compareWithDuckDB(d, res, used)
			values += n
			for _, m := range msgs {
				t.Errorf("%s (%T): %s", d.File, e, m)
			}
		}
	})
	t.Logf("DuckDB-written files: %d files, %d values compared", len(files), values)

	// WHERE over the same files, counted by DuckDB and by pqscan: DuckDB's statistics, bloom
	// filters and v2 pages on the pruning side.
	// DuckDB reads its own UNION column back as an unnamed struct, whose members SQL cannot
	// name ("un"."num" is a Binder Error), so no predicate uses it.
	unions := map[string][]duckDeviation{}
	for _, f := range files {
		unions[f] = []duckDeviation{{column: "un", reason: "a UNION reads back as an unnamed struct"}}
	}
	if compared := whereDuckDB(t, dir, files, 25*whereDraws, unions); compared < 500 {
		t.Errorf("only %d predicates compared", compared)
	}
}

// TestDuckDBHiveWritten: a Hive folder DuckDB writes (COPY … PARTITION_BY), with partition
// values that need escaping (space, '/', '=', '%', '?', '#', ':', a tab, non-ASCII), a null
// (__HIVE_DEFAULT_PARTITION__), integers and dates, read as one table by pqscan and by DuckDB
// (hive_partitioning): every row's values agree. One deviation: DuckDB writes ” as `ps=` and
// reads it back as ”, pqscan reads an empty value as null, as Spark and Polars do.
func TestDuckDBHiveWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hive")
	q := strings.ReplaceAll(dir, "'", "''")
	lines := testcorpus.DuckLines(t,
		`COPY (SELECT i AS id,
		   (['a b', 'x/y', 'c=d', 'ü', '', NULL, '50%', 'q?r', 'hash#', 'colon:', 'tab`+"\t"+`x', 'Ü=/%'])[1 + i % 12] AS ps,
		   CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 - 1 END AS pi,
		   DATE '2024-01-01' + (i % 4)::INTEGER AS pd
		 FROM range(240) r(i)) TO '`+q+`' (FORMAT parquet, PARTITION_BY (ps, pi, pd))`,
		`SELECT id, ps, pi, strftime(pd, '%Y-%m-%d') FROM read_parquet('`+q+`/**/*.parquet', hive_partitioning = true) ORDER BY id`)
	var want [][]any
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &want))
	require.Equal(t, 240, len(want))

	res := scanSources(context.Background(), t, dir, []string{"./"}, pqscan.ScanOptions{Columns: []string{"id", "ps", "pi", "pd"}})
	require.Equal(t, int64(240), res.rows)
	got := map[string][]any{}
	for i := int64(0); i < res.rows; i++ {
		rec, j := res.rowAt(i)
		row := make([]any, 4)
		for c := range row {
			if v := canon(rec.Column(c), j, arrow.Microsecond); v != nil {
				row[c] = fmt.Sprint(v)
			}
		}
		got[strings.TrimPrefix(row[0].(string), "n:")] = row
	}
	for _, w := range want {
		id := fmt.Sprint(w[0])
		g := got[id]
		require.True(t, g != nil, "row", id, len(got))
		if w[1] == "" {
			w[1] = nil // the deviation above
		}
		for c, v := range w {
			var ws any
			if v != nil {
				ws = fmt.Sprint(v)
			}
			if c > 0 && ws != nil && g[c] != nil {
				gs := strings.TrimPrefix(strings.TrimPrefix(g[c].(string), "s:"), "n:")
				if gs != ws && strings.Trim(gs, `"`) != ws {
					t.Errorf("row %s column %d: pqscan %v, DuckDB %v", id, c, g[c], ws)
				}
				continue
			}
			if (ws == nil) != (g[c] == nil) {
				t.Errorf("row %s column %d: pqscan %v, DuckDB %v", id, c, g[c], ws)
			}
		}
	}
}
