// Package testcorpus locates the shared Parquet test corpus (apache/parquet-testing,
// hyparquet's files with expected JSON, arrow-testing) for tests. The corpus is never copied
// into the repository: tests read it from $PQSCAN_TESTDATA or ../shared/testdata.
package testcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Dir returns the corpus root, skipping the test when it cannot be found. In CI
// (CI=true) a missing corpus fails instead, so that a misconfigured run cannot pass silently.
func Dir(t testing.TB) string {
	t.Helper()
	if d, ok := Find(); ok {
		return d
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("testcorpus: shared/testdata not found (set PQSCAN_TESTDATA)")
	}
	t.Skip("testcorpus: shared/testdata not found (set PQSCAN_TESTDATA)")
	return ""
}

// Find returns the corpus root and whether it exists.
func Find() (string, bool) {
	if d := os.Getenv("PQSCAN_TESTDATA"); d != "" {
		return d, isDir(d)
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // repo root
	for _, c := range []string{
		filepath.Join(root, "..", "shared", "testdata"),
		filepath.Join(root, "..", "..", "shared", "testdata"),
	} {
		if isDir(c) {
			return filepath.Clean(c), true
		}
	}
	return "", false
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Files returns every file under the corpus whose name ends with one of the suffixes, as paths
// relative to the corpus root, sorted.
func Files(t testing.TB, suffixes ...string) []string {
	t.Helper()
	root := Dir(t)
	var out []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				rel, _ := filepath.Rel(root, p)
				out = append(out, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// Read returns the bytes of a corpus file given relative to the corpus root.
func Read(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
