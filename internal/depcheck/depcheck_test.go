// Package depcheck holds tests about the module's dependency graph: what may be linked into
// the wasm module (DESIGN.md §2: arrow-go costs megabytes there, net/http is dead weight in a
// sandbox) and which modules go.mod may require (RATIONALE.md).
package depcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// The packages that go into the .wasm build for wasip1 and link no arrow-go, no net/http and
// no module outside the allowed list.
func Test_wasmDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	allowed := []string{
		"github.com/pqscan/pqscan/",
		"github.com/klauspost/compress/",
		"github.com/golang/snappy",
		"github.com/dsnet/compress/",
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

// Package prune is standard library only (its doc says so): the dataset layer evaluates
// Delta and Hive statistics with it, and the Parquet-specific statistics rules live in
// prune/pqstats, which imports the Thrift structs.
func Test_pruneStdlibOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "./internal/prune")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") && dep != "github.com/pqscan/pqscan/internal/prune" {
			t.Errorf("internal/prune links %s", dep)
		}
	}
}

// go.mod's direct requirements are the ones RATIONALE.md justifies.
func Test_goModRequires(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	rationale, err := os.ReadFile(filepath.Join(repoRoot(t), "RATIONALE.md"))
	if err != nil {
		t.Fatal(err)
	}
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
		}
		if !inRequire || strings.HasSuffix(line, "// indirect") || line == "" {
			continue
		}
		mod := strings.Fields(line)[0]
		if !strings.Contains(string(rationale), mod) {
			t.Errorf("go.mod requires %s directly but RATIONALE.md does not justify it", mod)
		}
	}
}
