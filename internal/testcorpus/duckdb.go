package testcorpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
