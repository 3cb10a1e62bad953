package scan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostOptions are the fields of Options that the hosts set themselves (the JS bridge from the
// opened file), not options of the bridge's scan API.
var hostOptions = map[string]bool{"fileSize": true, "fileKey": true, "metadata": true,
	"rowsFrom": true, "rowsTo": true, "planUnits": true}

// goOption is one field of Options as the JS side must spell it: the JSON name, the JS type and
// the default as JSON (DefaultOptions).
type goOption struct {
	name, typ, def string
}

func goOptions(t *testing.T) []goOption {
	t.Helper()
	def := reflect.ValueOf(DefaultOptions())
	typ := def.Type()
	var out []goOption
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Fatalf("Options.%s has no JSON name", f.Name)
		}
		if hostOptions[name] {
			continue
		}
		v := def.Field(i)
		var js string
		switch {
		case f.Type.Kind() == reflect.String:
			js = "string"
		case f.Type.Kind() == reflect.Bool:
			js = "boolean"
		case v.CanInt():
			js = "number"
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			js = "string[]"
			if v.IsNil() {
				v = reflect.ValueOf([]string{})
			}
		default:
			t.Fatalf("Options.%s: no JS type for Go type %s; add it to options_jsbridge_test.go", f.Name, f.Type)
		}
		b, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, goOption{name, js, string(b)})
	}
	return out
}

// jsValue turns a default as written in options.js or index.d.ts (a number, `a << b`, 'text',
// "text", true, false, []) into canonical JSON.
func jsValue(t *testing.T, where, s string) string {
	t.Helper()
	s = strings.TrimSpace(s)
	if m := regexp.MustCompile(`^(\d+)\s*<<\s*(\d+)$`).FindStringSubmatch(s); m != nil {
		a, _ := strconv.ParseInt(m[1], 10, 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		return strconv.FormatInt(a<<b, 10)
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		b, _ := json.Marshal(s[1 : len(s)-1])
		return string(b)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: cannot read the default %q: %v", where, s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func readJS(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "jsbridge", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOptionsJSAgree checks that the engine options of the JS bridge (the ENGINE_OPTIONS table
// of jsbridge/src/options.js and the EngineScanOptions interface of jsbridge/index.d.ts) have
// the names (JSON tags), types and defaults (DefaultOptions) of Options, in the same order.
func TestOptionsJSAgree(t *testing.T) {
	want := goOptions(t)

	src := readJS(t, "src/options.js")
	block := regexp.MustCompile(`(?s)export const ENGINE_OPTIONS = Object\.freeze\(\[(.*?)\n\]\)`).FindStringSubmatch(src)
	if block == nil {
		t.Fatal("jsbridge/src/options.js: no `export const ENGINE_OPTIONS = Object.freeze([ … ])` table")
	}
	entry := regexp.MustCompile(`^\s*\{ name: '(\w+)', type: '([\w\[\]]+)', default: (.*?) \},?\s*$`)
	var js []goOption
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		m := entry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("jsbridge/src/options.js: cannot read the ENGINE_OPTIONS line %q (one `{ name: 'x', type: 't', default: v },` a line)", line)
		}
		js = append(js, goOption{m[1], m[2], jsValue(t, "options.js "+m[1], m[3])})
	}
	compare(t, "jsbridge/src/options.js ENGINE_OPTIONS", js, want)

	dts := readJS(t, "index.d.ts")
	block = regexp.MustCompile(`(?s)export interface EngineScanOptions \{\n(.*?)\n\}`).FindStringSubmatch(dts)
	if block == nil {
		t.Fatal("jsbridge/index.d.ts: no `export interface EngineScanOptions { … }`")
	}
	field := regexp.MustCompile(`(?m)^  /\*\*.*@default (.*?) \*/\n  (\w+)\?: ([\w\[\]]+)$`)
	var ts []goOption
	for _, m := range field.FindAllStringSubmatch(block[1], -1) {
		ts = append(ts, goOption{m[2], m[3], jsValue(t, "index.d.ts "+m[2], m[1])})
	}
	if n := strings.Count(block[1], "?:"); n != len(ts) {
		t.Fatalf("jsbridge/index.d.ts EngineScanOptions: %d fields, %d of them with a `/** … @default v */` line right above", n, len(ts))
	}
	compare(t, "jsbridge/index.d.ts EngineScanOptions", ts, want)
}

func compare(t *testing.T, where string, got, want []goOption) {
	t.Helper()
	names := func(os []goOption) []string {
		var s []string
		for _, o := range os {
			s = append(s, o.name)
		}
		return s
	}
	if !slices.Equal(names(got), names(want)) {
		t.Errorf("%s: options %v, want (the JSON names of scan.Options minus the host fields %v) %v", where, names(got), keys(hostOptions), names(want))
		return
	}
	for i := range want {
		if got[i].typ != want[i].typ {
			t.Errorf("%s: %s has type %s, want %s", where, want[i].name, got[i].typ, want[i].typ)
		}
		if got[i].def != want[i].def {
			t.Errorf("%s: %s defaults to %s, want %s (DefaultOptions)", where, want[i].name, got[i].def, want[i].def)
		}
	}
}

func keys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}
