package main

import (
	"encoding/json"
	"fmt"
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
	testcorpus.DuckNode(t) // skips (fails under CI) before anything is built when the oracle is missing
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
	lines := testcorpus.DuckLines(t, sqls...)
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

// Test_orderBySourcesDuckDB: pqscan cat --order-by over every dataset source kind returns the
// rows of DuckDB's ORDER BY over the same files (ties by file, then position in it), with and
// without a limit, through the native engine and the wasm module.
func Test_orderBySourcesDuckDB(t *testing.T) {
	testcorpus.DuckNode(t) // skips (fails under CI) before anything is built when the oracle is missing
	locals, sources := mixedSources(t)
	from := "read_parquet(['" + strings.Join(locals, "','") + "'], hive_partitioning = true, filename = true, file_row_number = true)"
	cases := []struct {
		orderBy, where string
		limit, offset  int
	}{
		{"v DESC", "", 7, 0},
		{"name NULLS FIRST, v", "day >= DATE '2024-01-02'", 12, 3},
		{"id DESC", "", 3, 0},
		{"v, id DESC", "name IS NOT NULL", 0, 0},
	}
	var sqls []string
	for _, c := range cases {
		sql := "SELECT CAST(id AS VARCHAR) FROM " + from
		if c.where != "" {
			sql += " WHERE " + c.where
		}
		sql += " ORDER BY " + c.orderBy + ", filename, file_row_number"
		if c.limit > 0 {
			sql += fmt.Sprintf(" LIMIT %d", c.limit)
		}
		sqls = append(sqls, sql+fmt.Sprintf(" OFFSET %d", c.offset))
	}
	lines := testcorpus.DuckLines(t, sqls...)
	for k, c := range cases {
		var duck [][]string
		require.NoError(t, json.Unmarshal([]byte(lines[k]), &duck))
		var want []string
		for _, r := range duck {
			want = append(want, r[0])
		}
		for name, src := range sources {
			for _, engine := range []string{"native", "wasm"} {
				args := append([]string{"cat", "--engine", engine, "--columns", "id", "--format", "csv", "--order-by", c.orderBy,
					"--where", c.where, "--limit", fmt.Sprint(c.limit), "--offset", fmt.Sprint(c.offset)}, src...)
				code, got, errOut := runCLI(t, args...)
				require.Equal(t, 0, code, errOut, args)
				ids := strings.Split(strings.TrimSpace(got), "\n")[1:] // after the header
				require.Equal(t, want, ids, name, engine, c.orderBy, c.where)
			}
		}
	}
}
