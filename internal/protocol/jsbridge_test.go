package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func readJS(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "jsbridge", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsName spells a Go step kind as the bridge's constant: NeedRangesAsArrived → NEED_RANGES_AS_ARRIVED.
func jsName(goName string) string {
	var b strings.Builder
	for i, r := range goName {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// TestStepKindsJSAgree: every step kind has its constant in jsbridge/src/module.js, with the
// same number.
func TestStepKindsJSAgree(t *testing.T) {
	src := readJS(t, "src/module.js")
	consts := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^export const ([A-Z_]+) = (\d+)$`).FindAllStringSubmatch(src, -1) {
		consts[m[1]], _ = strconv.Atoi(m[2])
	}
	for k, name := range stepNames {
		if name == "" {
			continue
		}
		js := jsName(name)
		v, ok := consts[js]
		if !ok {
			t.Errorf("jsbridge/src/module.js: no `export const %s = %d` (protocol.%s)", js, k, name)
		} else if v != k {
			t.Errorf("jsbridge/src/module.js: %s = %d, protocol.%s is %d", js, v, name, k)
		}
	}
}

// TestErrorKindsJSAgree: the ERROR_KINDS table of jsbridge/src/errors.js gives each error kind
// its code (ErrorKind.Code), in kind order, and every code is an ErrorCode of errors.js and
// index.d.ts.
func TestErrorKindsJSAgree(t *testing.T) {
	src := readJS(t, "src/errors.js")
	block := regexp.MustCompile(`(?s)export const ERROR_KINDS = Object\.freeze\(\[\n(.*?)\n\]\)`).FindStringSubmatch(src)
	if block == nil {
		t.Fatal("jsbridge/src/errors.js: no `export const ERROR_KINDS = Object.freeze([ … ])` table")
	}
	entry := regexp.MustCompile(`^\s*(?:null|'([a-z-]+)'),\s*$`)
	var js []string
	for _, line := range strings.Split(block[1], "\n") {
		m := entry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("jsbridge/src/errors.js: cannot read the ERROR_KINDS line %q (one `'code',` or `null,` a line)", line)
		}
		js = append(js, m[1])
	}
	if len(js) != NumErrorKinds {
		t.Errorf("jsbridge/src/errors.js: ERROR_KINDS has %d entries, protocol %d error kinds", len(js), NumErrorKinds)
	}
	typedef := regexp.MustCompile(`@typedef \{([^}]*)\} ErrorCode`).FindStringSubmatch(src)
	if typedef == nil {
		t.Fatal("jsbridge/src/errors.js: no `@typedef {…} ErrorCode`")
	}
	dts := readJS(t, "index.d.ts")
	for k := range min(len(js), NumErrorKinds) {
		want := ErrorKind(k).Code()
		if js[k] != want {
			t.Errorf("jsbridge/src/errors.js: ERROR_KINDS[%d] is %q, want %q (protocol.ErrorKind(%d).Code())", k, js[k], want, k)
		}
		if want == "" {
			continue
		}
		q := "'" + want + "'"
		if !strings.Contains(typedef[1], q) {
			t.Errorf("jsbridge/src/errors.js: the ErrorCode typedef lacks %s", q)
		}
		if !regexp.MustCompile(`(?m)^\s*\|.*` + regexp.QuoteMeta(q)).MatchString(dts) {
			t.Errorf("jsbridge/index.d.ts: the ErrorCode type lacks %s", q)
		}
	}
}

// TestObjectKindsJSAgree: every object kind has its constant in jsbridge/src/module.js
// (ObjectPage → OBJECT_PAGE = 'page').
func TestObjectKindsJSAgree(t *testing.T) {
	src := readJS(t, "src/module.js")
	consts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^export const (OBJECT_[A-Z_]+) = '([a-z]+)'$`).FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	for _, k := range objectKinds {
		js := "OBJECT_" + strings.ToUpper(k)
		if v, ok := consts[js]; !ok || v != k {
			t.Errorf("jsbridge/src/module.js: want `export const %s = '%s'`, have %q", js, k, v)
		}
	}
	if len(consts) != len(objectKinds) {
		t.Errorf("jsbridge/src/module.js: %d OBJECT_ constants, protocol has %d object kinds", len(consts), len(objectKinds))
	}
}

// TestDatasetMetadataJSAgree: the JS bridge's open metadata (jsbridge/src/tailcache.js
// cacheReport) and its type (index.d.ts DatasetMetadata) spell every field of DatasetMetadata
// and DeltaSnapshot as their JSON names.
func TestDatasetMetadataJSAgree(t *testing.T) {
	src, dts := readJS(t, "src/tailcache.js"), readJS(t, "index.d.ts")
	for _, v := range []any{DatasetMetadata{}, DeltaSnapshot{}} {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if !regexp.MustCompile(`\b` + name + `\b`).MatchString(src) {
				t.Errorf("jsbridge/src/tailcache.js: no %s (protocol.%s.%s)", name, rt.Name(), rt.Field(i).Name)
			}
			if !regexp.MustCompile(`(?m)^\s*(/\*\*.*\*/\s*)?\w*.*\b`+name+`\?:`).MatchString(dts) && !strings.Contains(dts, name+": number") {
				t.Errorf("jsbridge/index.d.ts: DatasetMetadata lacks %s (protocol.%s.%s)", name, rt.Name(), rt.Field(i).Name)
			}
		}
	}
}
