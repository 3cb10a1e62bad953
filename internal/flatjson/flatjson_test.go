package flatjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// collect parses raw, keeping every member (set accepts all).
func collect(raw string) (map[string]Value, bool) {
	m := map[string]Value{}
	ok := Parse([]byte(raw), func(k string, v Value) bool {
		m[k] = v
		return true
	})
	return m, ok
}

func Test_parseAccepts(t *testing.T) {
	cases := []struct {
		raw  string
		want map[string]Value
	}{
		{`{}`, map[string]Value{}},
		{" \t\r\n{ }\n", map[string]Value{}},
		{`{"a":true,"b":false}`, map[string]Value{"a": {Kind: Bool, B: true}, "b": {Kind: Bool}}},
		{`{"n":0,"m":-12,"x":9223372036854775807,"y":-9223372036854775808}`, map[string]Value{"n": {Kind: Int}, "m": {Kind: Int, I: -12}, "x": {Kind: Int, I: 1<<63 - 1}, "y": {Kind: Int, I: -1 << 63}}},
		{`{"s":"tenant_id = 3 AND x < 'a\"b'"}`, map[string]Value{"s": {Kind: String, S: `tenant_id = 3 AND x < 'a"b'`}}},
		{`{"k":"http://h/x.parquet\n\"v1-12\"\n12","e":"\\\/\b\f\r\t"}`, map[string]Value{"k": {Kind: String, S: "http://h/x.parquet\n\"v1-12\"\n12"}, "e": {Kind: String, S: "\\/\b\f\r\t"}}},
		{`{"u":"héllo ✓"}`, map[string]Value{"u": {Kind: String, S: "héllo ✓"}}},
		{`{"c":[],"d":["a"],"e":[ "x" , "y" ]}`, map[string]Value{"c": {Kind: Strings, SS: []string{}}, "d": {Kind: Strings, SS: []string{"a"}}, "e": {Kind: Strings, SS: []string{"x", "y"}}}},
	}
	for _, c := range cases {
		got, ok := collect(c.raw)
		require.True(t, ok, c.raw)
		require.True(t, reflect.DeepEqual(got, c.want), "%s: got %#v", c.raw, got)
	}
}

func Test_parseRefuses(t *testing.T) {
	for _, raw := range []string{
		``, ` `, `[]`, `"x"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1}x`, `{"a":1}{}`, `{} 1`,
		`{"a":null}`, `{"a":{}}`, `{"a":[1]}`, `{"a":[null]}`, `{"a":["x",]}`, `{"a":["x"}`,
		`{"a":1.5}`, `{"a":1e3}`, `{"a":1E3}`, `{"a":-}`, `{"a":01}`, `{"a":-01}`, `{"a":+1}`,
		`{"a":9223372036854775808}`, `{"a":-9223372036854775809}`,
		`{"a":tru}`, `{"a":True}`, `{"a":nul}`,
		`{"a":"\u0041"}`, `{"a":"\x"}`, `{"a":"x`, `{"a":"` + "\x01" + `"}`, `{"a":"` + "\xff" + `"}`, `{"` + "\xc3" + `":1}`,
		`{"a":1,"a":2}`, `{a:1}`, `{'a':1}`,
	} {
		_, ok := collect(raw)
		require.True(t, !ok, "accepted %q", raw)
	}
	// set refusing a member refuses the object.
	require.True(t, !Parse([]byte(`{"a":1,"b":2}`), func(k string, v Value) bool { return k == "a" }), "set refused b")
}

// FuzzParse: whatever Parse accepts is a JSON object that encoding/json decodes to the same
// members (numbers compared as their decimal text, arrays of strings as string slices).
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":true,"n":-3,"s":"x\ny","c":["a","b"]}`, `{"fileKey":"u\n\"e\"\n1","columns":[]}`, `{"a":1.5}`, `{"a":"\u00e9"}`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := map[string]Value{}
		if !Parse(raw, func(k string, v Value) bool {
			got[k] = v
			return true
		}) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var want map[string]any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("Parse accepted %q, encoding/json: %v", raw, err)
		}
		if dec.More() {
			t.Fatalf("Parse accepted %q with bytes after the object", raw)
		}
		if len(want) != len(got) {
			t.Fatalf("%q: %d members, encoding/json %d", raw, len(got), len(want))
		}
		for k, w := range want {
			g, ok := got[k]
			if !ok {
				t.Fatalf("%q: member %q missing", raw, k)
			}
			switch w := w.(type) {
			case bool:
				if g.Kind != Bool || g.B != w {
					t.Fatalf("%q: %q = %#v, want %v", raw, k, g, w)
				}
			case json.Number:
				if n, err := strconv.ParseInt(string(w), 10, 64); g.Kind != Int || err != nil || n != g.I {
					t.Fatalf("%q: %q = %#v, want %v", raw, k, g, w)
				}
			case string:
				if g.Kind != String || g.S != w {
					t.Fatalf("%q: %q = %#v, want %q", raw, k, g, w)
				}
			case []any:
				if g.Kind != Strings || len(g.SS) != len(w) || g.SS == nil {
					t.Fatalf("%q: %q = %#v, want %v", raw, k, g, w)
				}
				for i, x := range w {
					if s, ok := x.(string); !ok || s != g.SS[i] {
						t.Fatalf("%q: %q[%d] = %q, want %v", raw, k, i, g.SS[i], x)
					}
				}
			default:
				t.Fatalf("%q: %q is %T in encoding/json", raw, k, w)
			}
		}
	})
}
