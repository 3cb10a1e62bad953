package errf

import (
	"bufio"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Test_callSites type-checks every pqscan package of the lean and the full wasm module and
// checks each call of Errorf and Sprintf (and of functions that pass their format and args on
// to them): the format is a constant, and every verb and argument type is one errf prints as
// fmt does. A dynamic type switch cannot see through named types, so "%d" needs a built-in
// integer type (convert a named one at the call site) and "%s" a string, []byte, error or
// Stringer. It also fails on a call into fmt's printers from a package of either module.
func Test_callSites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -export")
	}
	for _, tags := range []string{"pqscan_lean", ""} {
		checkBuild(t, tags)
	}
}

type listed struct {
	path, export, dir string
	files             []string
	std               bool
}

func checkBuild(t *testing.T, tags string) {
	root, _ := filepath.Abs("../..")
	cmd := exec.Command("go", "list", "-export", "-deps", "-tags="+tags,
		"-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{.Standard}}", "./wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	exports := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			continue
		}
		p := listed{path: f[0], export: f[1], dir: f[2], std: f[4] == "true"}
		if f[3] != "" {
			p.files = strings.Split(f[3], ",")
		}
		exports[p.path] = p.export
		pkgs = append(pkgs, p)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	for _, p := range pkgs {
		if !strings.HasPrefix(p.path, "github.com/pqscan/pqscan/") || p.path == "github.com/pqscan/pqscan/internal/errf" {
			continue
		}
		var files []*ast.File
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp.(types.ImporterFrom), Sizes: types.SizesFor("gc", "wasm")}
		if _, err := conf.Check(p.path, fset, files, info); err != nil {
			t.Fatalf("%s (tags %q): %v", p.path, tags, err)
		}
		c := &checker{t: t, fset: fset, info: info, wrappers: map[types.Object]int{}}
		for pass := 0; pass < 2; pass++ { // wrappers first, then their callers
			for _, f := range files {
				c.file(f, pass == 1)
			}
		}
	}
}

type checker struct {
	t        *testing.T
	fset     *token.FileSet
	info     *types.Info
	wrappers map[types.Object]int // functions passing (format, args...) on: format's index
}

func (c *checker) file(f *ast.File, report bool) {
	var fn *ast.FuncDecl
	ast.Inspect(f, func(n ast.Node) bool {
		if d, ok := n.(*ast.FuncDecl); ok {
			fn = d
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		obj := c.callee(call)
		if obj == nil {
			return true
		}
		fi, isWrapper := c.wrappers[obj]
		if obj.Pkg() != nil && obj.Pkg().Path() == "fmt" && report && (strings.Contains(obj.Name(), "rint") || obj.Name() == "Errorf") {
			c.t.Errorf("%s: fmt.%s in a package of a wasm module: use errf", c.fset.Position(call.Pos()), obj.Name())
			return true
		}
		if obj.Pkg() != nil && obj.Pkg().Path() == "github.com/pqscan/pqscan/internal/errf" && (obj.Name() == "Errorf" || obj.Name() == "Sprintf") {
			fi, isWrapper = 0, true
		}
		if !isWrapper || len(call.Args) <= fi {
			return true
		}
		if call.Ellipsis.IsValid() {
			if fn != nil && !report {
				c.markWrapper(fn, call, fi)
			}
			return true
		}
		if report {
			c.call(call, fi, obj.Name() == "Errorf")
		}
		return true
	})
}

func (c *checker) callee(call *ast.CallExpr) types.Object {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return c.info.Uses[f]
	case *ast.SelectorExpr:
		return c.info.Uses[f.Sel]
	}
	return nil
}

// markWrapper records fn as a wrapper when it passes one of its parameters as the format.
func (c *checker) markWrapper(fn *ast.FuncDecl, call *ast.CallExpr, fi int) {
	id, ok := call.Args[fi].(*ast.Ident)
	if !ok {
		return
	}
	i := 0
	for _, field := range fn.Type.Params.List {
		for _, name := range field.Names {
			if name.Name == id.Name {
				c.wrappers[c.info.Defs[fn.Name]] = i
				return
			}
			i++
		}
	}
}

func (c *checker) call(call *ast.CallExpr, fi int, errorf bool) {
	pos := c.fset.Position(call.Pos())
	tv := c.info.Types[call.Args[fi]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		c.t.Errorf("%s: format is not a constant", pos)
		return
	}
	format := constant.StringVal(tv.Value)
	args := call.Args[fi+1:]
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		sharp := i < len(format) && format[i] == '#'
		if sharp {
			i++
		}
		padded := false
		for i < len(format) && '0' <= format[i] && format[i] <= '9' {
			padded = format[i-1] == '%' && format[i] == '0' || padded
			i++
		}
		if i >= len(format) {
			c.t.Errorf("%s: format ends in %%", pos)
			return
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size - 1
		if verb == '%' {
			continue
		}
		if n >= len(args) {
			c.t.Errorf("%s: %%%c has no argument", pos, verb)
			return
		}
		typ := c.info.Types[args[n]].Type
		why := supported(verb, sharp, errorf, typ)
		if padded {
			why = ""
			if b, ok := typ.(*types.Basic); sharp || !ok || b.Info()&types.IsUnsigned == 0 || verb != 'd' && verb != 'x' {
				why = "a width only as %0Nd or %0Nx on a built-in unsigned integer"
			}
		}
		if why != "" {
			c.t.Errorf("%s: %%%s%c with %s: %s", pos, map[bool]string{true: "#"}[sharp], verb, typ, why)
		}
		n++
	}
	if n != len(args) {
		c.t.Errorf("%s: %d verbs, %d arguments", pos, n, len(args))
	}
}

var (
	errorType    = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	stringerType = types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "String",
		types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewVar(token.NoPos, nil, "", types.Typ[types.String])), false))}, nil).Complete()
)

// supported says why errf cannot print typ with verb as fmt does, or "" when it can.
func supported(verb rune, sharp, errorf bool, typ types.Type) string {
	typ = types.Unalias(typ)
	basic, _ := typ.(*types.Basic) // not Underlying: a named type is not matched by errf's switch
	if basic != nil && basic.Info()&types.IsUntyped != 0 {
		basic = types.Default(basic).(*types.Basic)
	}
	methods := types.Implements(typ, errorType) || types.Implements(typ, stringerType)
	switch {
	case sharp && verb != 'x':
		return "no flags but # on x"
	case verb == 'd':
		if basic == nil || basic.Info()&types.IsInteger == 0 {
			return "%d takes a built-in integer type (convert it)"
		}
	case verb == 'x':
		if !sharp || basic == nil || basic.Info()&types.IsUnsigned == 0 {
			return "only %#x on built-in unsigned integers"
		}
	case verb == 'w':
		if !errorf || !types.Implements(typ, errorType) {
			return "%w takes an error, in Errorf"
		}
	case verb == 's' || verb == 'q' || verb == 'v':
		if methods || basic != nil && basic.Kind() == types.String {
			return ""
		}
		if sl, ok := typ.(*types.Slice); ok && verb != 'v' && types.Identical(sl.Elem(), types.Typ[types.Byte]) {
			return ""
		}
		if verb == 'v' && basic != nil && basic.Info()&(types.IsInteger|types.IsBoolean) != 0 {
			return ""
		}
		if it, ok := typ.(*types.Interface); ok && verb == 'v' && it.Empty() {
			return "" // printed by its dynamic type (the package comment)
		}
		return "takes a string, []byte, error or Stringer (%v also a built-in integer or bool)"
	default:
		return "verb not supported"
	}
	return ""
}
