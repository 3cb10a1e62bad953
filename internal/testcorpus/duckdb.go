package testcorpus

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// DuckNode returns the node binary that runs the DuckDB oracle scripts in the repository's
// duckdb/ folder (npm @duckdb/node-api, which ships DuckDB's native binary). Without node or
// the installed package the test is skipped, except under CI (CI=true), where .ci/run installs
// them and a missing oracle must fail rather than pass silently.
func DuckNode(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // repo root
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "duckdb", "node_modules", "@duckdb", "node-api", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DuckDB oracle unavailable (%v): .ci/run runs npm ci in duckdb/", err)
		}
		t.Skipf("DuckDB oracle unavailable (%v): run `make duckdb-deps`", err)
	}
	return node
}

// DuckLines runs each SQL with the DuckDB oracle (duckdb/query.mjs, from the repository root)
// and returns its output: one JSON line of rows per query, in order. A failed run, or a line
// count that differs from the queries', fails the test.
func DuckLines(t testing.TB, sqls ...string) []string {
	t.Helper()
	node := DuckNode(t)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(root, "duckdb", "query.mjs")}, sqls...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb/query.mjs: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(sqls) {
		t.Fatalf("duckdb/query.mjs: %d lines for %d queries", len(lines), len(sqls))
	}
	return lines
}

// DuckScript is the path of an oracle script in the repository's duckdb/ folder ("dump.mjs"),
// so that a test runs it from any package's directory.
func DuckScript(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(file))), "duckdb", name)
}
