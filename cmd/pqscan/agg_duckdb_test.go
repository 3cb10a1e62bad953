package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_aggSourcesDuckDB: pqscan count and pqscan minmax over every dataset source kind
// (mixedSources: a Hive folder listed over HTTP, a list of URLs, a local glob, a local folder)
// print what DuckDB's count(*), min() and max() give over the same files, with predicates on
// partition and file columns, through the native engine and the wasm module.
func Test_aggSourcesDuckDB(t *testing.T) {
	node := testcorpus.DuckNode(t)
	locals, sources := mixedSources(t)
	from := "read_parquet(['" + strings.Join(locals, "','") + "'], hive_partitioning = true)"
	queries := []string{"", "day = DATE '2024-01-02'", "v > 0.5 AND day >= DATE '2024-01-02'", "name = 'n5' AND day != DATE '2024-01-01'", "id < 0"}
	cols := []string{"id", "name", "v", "day"}
	var sqls []string
	for _, q := range queries {
		sql := "SELECT count(*)"
		for _, c := range cols {
			sql += fmt.Sprintf(", CAST(min(%s) AS VARCHAR), CAST(max(%s) AS VARCHAR)", c, c)
		}
		sql += " FROM " + from
		if q != "" {
			sql += " WHERE " + q
		}
		sqls = append(sqls, sql)
	}
	out, err := exec.Command(node, append([]string{filepath.Join("..", "..", "duckdb", "query.mjs")}, sqls...)...).Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Equal(t, len(sqls), len(lines))
	for k, q := range queries {
		var duck [][]any
		require.NoError(t, json.Unmarshal([]byte(lines[k]), &duck))
		row := duck[0]
		for name, src := range sources {
			for _, engine := range []string{"native", "wasm"} {
				what := fmt.Sprintf("%s, %s: %q", name, engine, q)
				args := append([]string{"count", "--engine", engine, "--where", q}, src...)
				code, got, errOut := runCLI(t, args...)
				require.Equal(t, 0, code, what+": "+errOut)
				require.Equal(t, rowKey(row[0]), strings.TrimSpace(got), what)
				for i, c := range cols {
					args := append([]string{"minmax", "--engine", engine, "--where", q}, src...)
					code, got, errOut := runCLI(t, append(args, c)...)
					require.Equal(t, 0, code, what+": "+errOut)
					var m map[string]any
					require.NoError(t, json.Unmarshal([]byte(got), &m), got)
					require.Equal(t, rowKey(row[1+2*i], row[2+2*i]), rowKey(m["min"], m["max"]), what, c)
				}
			}
		}
	}
}
