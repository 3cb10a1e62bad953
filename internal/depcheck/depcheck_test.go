// Package depcheck holds tests about the module's dependency graph: what may be linked into
// the wasm module (DESIGN.md §2: arrow-go costs megabytes there, net/http is dead weight in a
// sandbox) and which modules go.mod may require (RATIONALE.md).
package depcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// The packages that go into the .wasm build for wasip1 and link no arrow-go, no net/http, no
// ZSTD decoder and no module outside the allowed list.
func Test_wasmDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	allowed := []string{
		"github.com/pqscan/pqscan/",
		"github.com/klauspost/compress/",
		"github.com/golang/snappy",
		"github.com/google/flatbuffers/go",
	}
	for _, pkg := range []string{"./wasm", "./internal/scan", "./internal/decode/...", "./internal/prune/...", "./internal/httprange"} {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s for wasip1: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net/http" || strings.HasPrefix(dep, "net/http/") || dep == "os/exec" {
				t.Errorf("%s links %s", pkg, dep)
			}
			// ZSTD pages are the host's to decode (internal/decode/codec/zstd.go): klauspost's
			// decoder, with the crypto/rand it links, was ~139 KB brotli of the module.
			if dep == "github.com/klauspost/compress/zstd" || dep == "crypto" || strings.HasPrefix(dep, "crypto/") {
				t.Errorf("%s links %s, which the wasm module leaves to its host", pkg, dep)
			}
			// Exact arithmetic is internal/prune/exactnum's: math/big was ~29 KB brotli.
			if dep == "math/big" {
				t.Errorf("%s links math/big: use internal/prune/exactnum", pkg)
			}
			if !strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") {
				continue // standard library
			}
			ok := false
			for _, a := range allowed {
				ok = ok || strings.HasPrefix(dep, a) || dep == strings.TrimSuffix(a, "/")
			}
			if !ok {
				t.Errorf("%s links %s, which is not allowed in the wasm module", pkg, dep)
			}
		}
	}
}

// The lean module (-tags pqscan_lean, the one a page loads first) links no table session and
// no rare codec (BROTLI, GZIP): what it leaves out is what makes it smaller, and one import of a dataset
// package from the single-file path would bring it all back unnoticed until `make size`.
func Test_leanWasmDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-tags", "pqscan_lean", "-deps", "./wasm")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -tags pqscan_lean ./wasm: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/pqscan/pqscan/internal/dataset/", "github.com/pqscan/pqscan/internal/tablescan",
			"github.com/pqscan/pqscan/internal/avro", "github.com/pqscan/pqscan/internal/roaring", "github.com/pqscan/pqscan/internal/decode/codec/brotli",
			// GZIP is left to the full module (~25 KB brotli).
			"github.com/klauspost/compress/", "compress/"} {
			if strings.HasPrefix(dep, banned) || dep+"/" == banned {
				t.Errorf("the lean module links %s", dep)
			}
		}
	}
}

// Package prune is standard library only (its doc says so): the dataset layer evaluates
// Delta and Hive statistics with it, and the Parquet-specific statistics rules live in
// prune/pqstats, which imports the Thrift structs. It may use internal/geo (the WKB geometry
// tests of spatial predicates), prune/exactnum (its exact arithmetic), internal/errf (its
// error messages) and internal/jsonv and jsonw (its JSON wire form), themselves standard
// library only.
func Test_pruneStdlibOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	own := []string{"github.com/pqscan/pqscan/internal/prune", "github.com/pqscan/pqscan/internal/geo",
		"github.com/pqscan/pqscan/internal/prune/exactnum", "github.com/pqscan/pqscan/internal/errf",
		"github.com/pqscan/pqscan/internal/jsonv", "github.com/pqscan/pqscan/internal/jsonw"}
	cmd := exec.Command("go", "list", "-deps", "./internal/prune", "./internal/geo")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") && !slices.Contains(own, dep) {
			t.Errorf("internal/prune links %s", dep)
		}
	}
}

// directRequires returns the modules a go.mod requires directly (not "// indirect"), in both
// the one-line and the block form of require.
func directRequires(t *testing.T, gomod string) []string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	inRequire := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "require ("):
			inRequire = true
			continue
		case line == ")":
			inRequire = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inRequire:
			continue
		}
		if strings.HasSuffix(line, "// indirect") || line == "" {
			continue
		}
		mods = append(mods, strings.Fields(line)[0])
	}
	return mods
}

// Every go.mod's direct requirements are the ones RATIONALE.md justifies: the root module's
// and those of the tools with dependencies of their own (internal/tools/*/go.mod).
func Test_goModRequires(t *testing.T) {
	rationale, err := os.ReadFile(filepath.Join(repoRoot(t), "RATIONALE.md"))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := filepath.Glob(filepath.Join(repoRoot(t), "internal", "tools", "*", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		gomod string
	}{{name: "root", gomod: filepath.Join(repoRoot(t), "go.mod")}}
	for _, p := range tools {
		tests = append(tests, struct {
			name  string
			gomod string
		}{name: filepath.Base(filepath.Dir(p)), gomod: p})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mods := directRequires(t, tc.gomod)
			if tc.name != "root" && len(mods) == 0 {
				t.Errorf("%s requires nothing: the tool needs no module of its own", tc.gomod)
			}
			for _, mod := range mods {
				if !strings.Contains(string(rationale), mod) {
					t.Errorf("%s requires %s directly but RATIONALE.md does not justify it", tc.gomod, mod)
				}
			}
		})
	}
}

// The root module's "tests only" requirements (RATIONALE.md) are imported by no package of the
// module outside its tests (arrow-go's parquet/compress may still link them on the native
// side); the wasmsize tool's brotli encoder lives in the tool's own module.
func Test_testOnlyRequires(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	testOnly := []string{"github.com/andybalholm/brotli", "github.com/pierrec/lz4/v4", "github.com/RoaringBitmap/roaring/v2"}
	cmd := exec.Command("go", "list", "-f", `{{range .Imports}}{{$.ImportPath}} {{.}}{{"\n"}}{{end}}`, "./...")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imp, _ := strings.Cut(line, " ")
		for _, m := range testOnly {
			if imp == m || strings.HasPrefix(imp, m+"/") {
				t.Errorf("%s imports %s, which RATIONALE.md lists as tests only", pkg, imp)
			}
		}
	}
}
