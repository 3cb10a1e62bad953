// Command wasmsize prints what the pqscan wasm module costs: raw, gzip -9 and brotli -q 11
// bytes of the shipped (stripped) module, then its code bytes attributed to runtime, standard
// library, each third-party module and each pqscan package, read from the function-name
// section of an otherwise identical build that was not stripped (`go tool nm` cannot read wasm).
//
// Code is attributed exactly; the data section (type descriptors, pclntab, string constants) is
// shown as one line because it is not split by symbol. The "brotli alone" column compresses each
// group's code by itself: it overstates every group a little (no shared context) but ranks them
// the way the shipped bytes do.
//
// The linker writes names with every character outside [A-Za-z0-9_.] replaced by "_"
// ("github.com_pqscan_pqscan_scan.__Scanner_.Next"), so a path cannot be recovered from a name
// alone: the names are matched against the sanitized import paths of `go list -deps` of the
// module's main package, longest first.
//
// It is a module of its own (its brotli encoder is no dependency of pqscan's), so it runs from
// its directory with absolute paths, as `make size` does:
//
//	cd internal/tools/wasmsize && go run . [-names /abs/unstripped.wasm] [-pkg /abs/repo/wasm] [-top N] /abs/module.wasm
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"

	"github.com/andybalholm/brotli"
)

func main() {
	names := flag.String("names", "", "a non-stripped build of the same module (for per-package code sizes)")
	top := flag.Int("top", 25, "packages to list")
	funcs := flag.String("funcs", "", "list the functions whose names start with this prefix, largest first (with -names)")
	pkg := flag.String("pkg", "./wasm", "the module's main package (a directory, or an import path listed from the current directory), for go list -deps (GOOS=wasip1)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-names unstripped.wasm] [-top N] module.wasm")
		os.Exit(2)
	}
	funcPrefix = *funcs
	if err := run(os.Stdout, flag.Arg(0), *names, *pkg, *top); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w *os.File, path, namesPath, mainPkg string, top int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", path)
	fmt.Fprintf(w, "  raw           %10d B\n", len(b))
	fmt.Fprintf(w, "  gzip -9       %10d B\n", gzipSize(b))
	fmt.Fprintf(w, "  brotli -q 11  %10d B\n", brotliSize(b))
	m, err := parse(b)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  sections: code %d B, data %d B, other %d B\n",
		m.sections["code"], m.sections["data"], len(b)-m.sections["code"]-m.sections["data"])
	if namesPath == "" {
		return nil
	}
	nb, err := os.ReadFile(namesPath)
	if err != nil {
		return err
	}
	nm, err := parse(nb)
	if err != nil {
		return err
	}
	if len(nm.names) == 0 {
		return fmt.Errorf("%s has no name section (built with -s?)", namesPath)
	}
	if nm.sections["code"] != m.sections["code"] {
		fmt.Fprintf(w, "  warning: code sections differ (%d vs %d B): builds are not from the same source\n",
			nm.sections["code"], m.sections["code"])
	}
	known, err := listDeps(mainPkg)
	if err != nil {
		return err
	}
	if funcPrefix != "" {
		printFuncs(w, nm, funcPrefix)
	}
	groups, pkgs := attribute(nm, known)
	total := nm.sections["code"]
	fmt.Fprintf(w, "\ncode by dependency (%d B of code in %d functions)\n", total, len(nm.bodies))
	printTable(w, groups, total, len(groups))
	fmt.Fprintf(w, "\ntop %d packages by code\n", top)
	printTable(w, pkgs, total, top)
	return nil
}

type group struct {
	name  string
	code  []byte
	funcs int
}

// attribute sums function bodies by dependency group and by package.
func attribute(m *module, known *pkgIndex) (groups, pkgs []*group) {
	byGroup, byPkg := map[string]*group{}, map[string]*group{}
	add := func(set map[string]*group, key string, body []byte) {
		g := set[key]
		if g == nil {
			g = &group{name: key}
			set[key] = g
		}
		g.code = append(g.code, body...)
		g.funcs++
	}
	for i, body := range m.bodies {
		pkg := known.pkgOf(m.names[m.importFn+i])
		add(byPkg, pkg, body)
		add(byGroup, groupOf(pkg), body)
	}
	return sorted(byGroup), sorted(byPkg)
}

func sorted(set map[string]*group) []*group {
	out := make([]*group, 0, len(set))
	for _, g := range set {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].code) != len(out[j].code) {
			return len(out[i].code) > len(out[j].code)
		}
		return out[i].name < out[j].name
	})
	return out
}

func printTable(w *os.File, gs []*group, total, n int) {
	fmt.Fprintf(w, "  %-52s %10s %6s %14s %6s\n", "group", "code B", "%", "brotli alone B", "funcs")
	for i, g := range gs {
		if i == n {
			break
		}
		fmt.Fprintf(w, "  %-52s %10d %5.1f%% %14d %6d\n", g.name, len(g.code),
			100*float64(len(g.code))/float64(max(total, 1)), brotliSize(g.code), g.funcs)
	}
}

// nameRegexp is the linker's sanitizer (cmd/link/internal/wasm/asm.go).
var nameRegexp = regexp.MustCompile(`[^\w.]`)

// pkgIndex maps sanitized package paths back to import paths.
type pkgIndex struct {
	sanitized []string          // longest first
	path      map[string]string // sanitized → import path
}

func listDeps(mainPkg string) (*pkgIndex, error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mainPkg)
	if st, err := os.Stat(mainPkg); err == nil && st.IsDir() {
		// A directory (the Makefile passes an absolute one): list it from inside, in the
		// module that holds it, since this tool is a module of its own.
		cmd = exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
		cmd.Dir = mainPkg
	}
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", mainPkg, err)
	}
	idx := &pkgIndex{path: map[string]string{}}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/pqscan/pqscan/wasm" {
			p = "main" // the linker names the main package's symbols main.*
		}
		s := nameRegexp.ReplaceAllString(p, "_")
		idx.path[s] = p
		idx.sanitized = append(idx.sanitized, s)
	}
	sort.Slice(idx.sanitized, func(i, j int) bool { return len(idx.sanitized[i]) > len(idx.sanitized[j]) })
	return idx, nil
}

// pkgOf returns the import path of a sanitized symbol name.
func (x *pkgIndex) pkgOf(sym string) string {
	for _, s := range x.sanitized {
		if strings.HasPrefix(sym, s+".") {
			if s == "main" {
				return "github.com/pqscan/pqscan/wasm"
			}
			return x.path[s]
		}
	}
	if strings.HasPrefix(sym, "type_.") || strings.HasPrefix(sym, "go_.") {
		return "(compiler-generated)"
	}
	return "(unnamed)"
}

// groupOf maps a package to its dependency: the Go runtime, the rest of the standard library,
// a third-party module (first three path elements), or itself for pqscan's own packages.
func groupOf(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "("):
		return pkg
	case pkg == "runtime" || strings.HasPrefix(pkg, "runtime/") || strings.HasPrefix(pkg, "internal/runtime/"),
		strings.HasPrefix(pkg, "internal/abi"), strings.HasPrefix(pkg, "internal/bytealg"),
		strings.HasPrefix(pkg, "internal/cpu"), strings.HasPrefix(pkg, "internal/sync"):
		return "go runtime"
	case strings.HasPrefix(pkg, "github.com/pqscan/pqscan"):
		return pkg
	case !strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return "go std: " + pkg
	}
	parts := strings.SplitN(pkg, "/", 4)
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return strings.Join(parts, "/")
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Len()
}

// brotliSize compresses like `brotli -q 11` (window 2^24, the CLI's default).
func brotliSize(b []byte) int {
	var buf bytes.Buffer
	bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 11, LGWin: 24})
	bw.Write(b)
	bw.Close()
	return buf.Len()
}

// funcPrefix is -funcs.
var funcPrefix string

// printFuncs lists the function bodies whose names start with prefix, largest first: where a
// package's code goes.
func printFuncs(w *os.File, m *module, prefix string) {
	type fn struct {
		name string
		size int
	}
	var fs []fn
	// The name section spells a package path with '_' for '/' (github.com_pqscan_…).
	mangled := strings.ReplaceAll(prefix, "/", "_")
	for i, body := range m.bodies {
		if name := m.names[m.importFn+i]; strings.HasPrefix(name, prefix) || strings.HasPrefix(name, mangled) {
			fs = append(fs, fn{name, len(body)})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].size > fs[j].size })
	fmt.Fprintf(w, "\nfunctions %s* (%d)\n", prefix, len(fs))
	for _, f := range fs {
		fmt.Fprintf(w, "  %8d  %s\n", f.size, f.name)
	}
}
