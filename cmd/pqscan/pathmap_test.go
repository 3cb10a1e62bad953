package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_pathMapFlag: an Iceberg table whose data/ folder (data, position and equality delete
// files) moved elsewhere, nothing rewritten, reads its oracle's rows with --path-map or
// PQSCAN_ICEBERG_PATHS mapping the location's data/ prefix there; the flag replaces the
// variable; a malformed map is a usage error naming where it came from.
func Test_pathMapFlag(t *testing.T) {
	const name, prefix = "icebird__java_bunnies", "s3a://hyperparam-iceberg/java/bunnies/data"
	dir := filepath.Join(testcorpus.Dir(t), "iceberg")
	table := filepath.Join(t.TempDir(), "t")
	require.NoError(t, os.CopyFS(table, os.DirFS(filepath.Join(dir, "tables", name))))
	moved := t.TempDir()
	require.NoError(t, os.Rename(filepath.Join(table, "data"), filepath.Join(moved, "data")))
	want, err := os.ReadFile(filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.current.jsonl"))
	require.NoError(t, err)
	wantRows := canonLines(t, want)
	spec := prefix + "=" + filepath.Join(moved, "data")

	for _, engine := range []string{"native", "wasm"} {
		code, out, errs := runCLI(t, "cat", "--engine", engine, "--path-map", spec, table+"/")
		require.Equal(t, 0, code, errs)
		require.Equal(t, wantRows, canonLines(t, []byte(out)), engine)
	}
	runCLICases(t, []cliCase{
		{name: "count", args: []string{"count", "--path-map", spec, table + "/"}, stdout: strconv.Itoa(len(wantRows)) + "\n"},
		{name: "no map", args: []string{"count", table + "/"}, code: 1, stderrHas: "data"},
		{name: "malformed flag", args: []string{"count", "--path-map", "s3a://b/t", table + "/"}, code: 2, stderrHas: "not PREFIX=BASE"},
		{name: "prefix twice", args: []string{"count", "--path-map", spec, "--path-map", spec, table + "/"}, code: 2, stderrHas: "mapped twice"},
	})

	t.Setenv(pathMapEnv, spec)
	code, out, errs := runCLI(t, "cat", table+"/")
	require.Equal(t, 0, code, errs)
	require.Equal(t, wantRows, canonLines(t, []byte(out)))
	// The flag replaces the variable, even a malformed one.
	t.Setenv(pathMapEnv, prefix+"="+filepath.Join(t.TempDir(), "nothing-here"))
	runCLICases(t, []cliCase{
		{name: "env elsewhere", args: []string{"count", table + "/"}, code: 1, stderrHas: "nothing-here"},
		{name: "flag wins", args: []string{"count", "--path-map", spec, table + "/"}, stdout: strconv.Itoa(len(wantRows)) + "\n"},
	})
	t.Setenv(pathMapEnv, "not a map")
	runCLICases(t, []cliCase{
		{name: "env malformed", args: []string{"cat", table + "/"}, code: 2, stderrHas: pathMapEnv},
		{name: "env malformed count", args: []string{"count", table + "/"}, code: 2, stderrHas: pathMapEnv},
		{name: "flag over malformed env", args: []string{"count", "--path-map", spec, table + "/"}, stdout: strconv.Itoa(len(wantRows)) + "\n"},
	})
}

// canonLines are JSON lines re-encoded with sorted keys, sorted.
func canonLines(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(string(bytes.TrimSpace(b)), "\n") {
		var v any
		require.NoError(t, json.Unmarshal([]byte(l), &v), l)
		c, err := json.Marshal(v)
		require.NoError(t, err)
		out = append(out, string(c))
	}
	sort.Strings(out)
	return out
}
