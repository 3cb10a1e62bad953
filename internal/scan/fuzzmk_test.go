package scan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_fuzzMakefileFindsEveryTarget: `make fuzz` (mk/fuzz.mk) discovers fuzz targets with
// grep; every func FuzzXxx(*testing.F) that go/parser finds in the repository must be in its
// list, so that no target is silently left out of `make fuzz`.
func Test_fuzzMakefileFindsEveryTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the repository")
	}
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var want []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || len(fn.Type.Params.List) != 1 {
				continue
			}
			if star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr); ok {
				if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "F" {
					rel, _ := filepath.Rel(root, filepath.Dir(p))
					want = append(want, "./"+filepath.ToSlash(rel)+" "+fn.Name.Name)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	cmd := exec.Command(makePath, "-s", "--no-print-directory", "fuzz-list")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "make fuzz-list")
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		got = append(got, strings.Replace(l, ". ", "./. ", 1)) // the root package: "." → "./."
	}
	sort.Strings(want)
	sort.Strings(got)
	require.True(t, len(want) > 20, "fuzz targets found:", len(want))
	require.Equal(t, want, got)
}
