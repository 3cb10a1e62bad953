package jsonv

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// toAny is v as encoding/json decodes a document into an `any` with UseNumber semantics
// left out: numbers as float64, objects as maps (the last of a repeated key wins).
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.B
	case Number:
		return v.N
	case String:
		return v.S
	case Array:
		out := make([]any, len(v.Elems))
		for i := range v.Elems {
			out[i] = toAny(&v.Elems[i])
		}
		return out
	}
	out := map[string]any{}
	for i, k := range v.Keys {
		out[k] = toAny(&v.Vals[i])
	}
	return out
}

// FuzzParse: Parse accepts exactly the documents encoding/json accepts, and reads them alike.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5,-0,1e3,true,false,null,"x\u00e9\ud83d\ude00"],"b":{"c":{}}}`,
		`"\ud800"`, `"a\u0000b"`, "\"\xff\"", `[1,]`, `{"a":1,"a":2}`, `01`, `-`, `1.`, `1e`, ` 1 `,
		`{"a" 1}`, `[`, `nul`, `1e999`, `"\x"`, "\"\t\"", `{"a":"b",}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		var want any
		jerr := json.Unmarshal(b, &want)
		if jerr != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(jerr, &ute) && err == nil && v.HasBig() {
				return // a number beyond float64: an error only where it is used
			}
			if err == nil {
				t.Fatalf("accepted what encoding/json refuses (%v): %q", jerr, b)
			}
			return
		}
		if err != nil {
			t.Fatalf("refused what encoding/json accepts: %v: %q", err, b)
		}
		if got := toAny(&v); !reflect.DeepEqual(got, want) {
			t.Fatalf("read differently:\n%#v\n%#v", got, want)
		}
		if string(v.Raw) != strings.TrimSpace(string(b)) && strings.Trim(string(b), " \t\r\n") != string(v.Raw) {
			t.Fatalf("raw %q of %q", v.Raw, b)
		}
	})
}

func Test_Parse(t *testing.T) {
	v, err := Parse([]byte(` {"a": [1, -2.5e1, "x"], "b": null, "a": {"c": true}} `))
	if err != nil {
		t.Fatal(err)
	}
	if c := v.Get("a").Get("c"); c == nil || c.Kind != Bool || !c.B {
		t.Fatalf("repeated key: %+v", v.Get("a"))
	}
	if !v.Get("b").IsNull() || !v.Get("zz").IsNull() || v.Get("b") == nil {
		t.Fatal("null and absent")
	}
	for _, tc := range []struct{ in, err string }{
		{`{"a":1`, "invalid JSON: want ',' or '}' at offset 6"},
		{``, "invalid JSON: unexpected end of JSON at offset 0"},
		{`[1] x`, "invalid JSON: trailing data at offset 4"},
		{`"a` + "\n" + `"`, "invalid JSON: control character in a string at offset 2"},
		{strings.Repeat("[", 10002), "invalid JSON: nested too deeply at offset 10001"},
	} {
		_, err := Parse([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != tc.err {
			t.Errorf("%.20q: %v, want %s", tc.in, err, tc.err)
		}
	}
}

func Test_numbers(t *testing.T) {
	for _, tc := range []struct {
		in  string
		i   int64
		iok bool
		f   float64
		fok bool
	}{
		{"12", 12, true, 12, true},
		{"-9223372036854775808", math.MinInt64, true, -9223372036854775808, true},
		{"9223372036854775808", 0, false, 9223372036854775808, true},
		{"1.0", 0, false, 1, true},
		{"1e2", 0, false, 100, true},
		{"1e400", 0, false, 0, false},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		i, iok := v.Int64()
		f, fok := v.Float64()
		if i != tc.i || iok != tc.iok || f != tc.f || fok != tc.fok {
			t.Errorf("%s: %v %v %v %v", tc.in, i, iok, f, fok)
		}
	}
}

func Test_Obj(t *testing.T) {
	v, err := Parse([]byte(`{"s":"x","n":3,"f":1.5,"b":true,"z":null,"ss":["a",null],"m":{"k":"v","n":null},
		"os":[{"p":"a"},{"p":"b"}],"c":{"d":{"e":7}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := NewObj(&v, "top")
	if o.Str("s") != "x" || o.Int("n") != 3 || o.Float("f") != 1.5 || !o.Bool("b") || o.Str("z") != "" || o.Has("z") || o.Has("nope") {
		t.Fatal("scalars")
	}
	if ss := o.Strs("ss"); !reflect.DeepEqual(ss, []string{"a", ""}) {
		t.Fatal(ss)
	}
	if m := o.StrMap("m"); !reflect.DeepEqual(m, map[string]string{"k": "v", "n": ""}) {
		t.Fatal(m)
	}
	if os := o.Objs("os"); len(os) != 2 || os[1].Str("p") != "b" {
		t.Fatal("objs")
	}
	if o.Child("c").Child("d").Int("e") != 7 || o.Child("absent").Int("e") != 0 {
		t.Fatal("child")
	}
	if o.Err() != nil {
		t.Fatal(o.Err())
	}
	for _, tc := range []struct {
		read func(o *Obj)
		err  string
	}{
		{func(o *Obj) { o.Str("n") }, "top.n: want a string, got a number"},
		{func(o *Obj) { o.Int("f") }, "top.f: want an integer, got a number"},
		{func(o *Obj) { o.Bool("s") }, "top.s: want a boolean, got a string"},
		{func(o *Obj) { o.Strs("m") }, "top.m: want an array of strings, got an object"},
		{func(o *Obj) { o.StrMap("ss") }, "top.ss: want an object of strings, got an array"},
		{func(o *Obj) { o.Objs("os")[1].Int("p") }, "top.os[1].p: want an integer, got a string"},
		{func(o *Obj) { o.Child("c").Child("d").Str("e") }, "top.c.d.e: want a string, got a number"},
		{func(o *Obj) { o.Child("s") }, "top.s: want an object, got a string"},
	} {
		o := NewObj(&v, "top")
		tc.read(o)
		if o.Err() == nil || o.Err().Error() != tc.err {
			t.Errorf("%v, want %s", o.Err(), tc.err)
		}
		// After an error every read is a zero value.
		if o.Str("s") != "" {
			t.Error("read after an error")
		}
	}
	if err := NewObj(&Value{Kind: Array}, "x").Err(); err == nil || err.Error() != "x: want an object, got an array" {
		t.Fatal(err)
	}
}

func Test_ObjMap(t *testing.T) {
	v, err := Parse([]byte(`{"m":{"a":{"n":1},"b":null,"a":{"n":2}},"s":"x","bad":{"c":{"n":"y"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := NewObj(&v, "top")
	keys, vals := o.ObjMap("m")
	got := map[string]int64{}
	for i, k := range keys {
		got[k] = vals[i].Int("n")
	}
	if !reflect.DeepEqual(got, map[string]int64{"a": 2, "b": 0}) || o.Err() != nil {
		t.Fatal(got, o.Err())
	}
	if k, _ := o.ObjMap("absent"); k != nil || len(keys) != 3 {
		t.Fatal(k)
	}
	for _, tc := range []struct{ key, err string }{
		{"s", "top.s: want an object, got a string"},
		{"bad", "top.bad.c.n: want an integer, got a string"},
	} {
		o := NewObj(&v, "top")
		_, vals := o.ObjMap(tc.key)
		for _, c := range vals {
			c.Int("n")
		}
		if o.Err() == nil || o.Err().Error() != tc.err {
			t.Errorf("%v, want %s", o.Err(), tc.err)
		}
	}
}

func Test_quirks(t *testing.T) {
	for _, tc := range []struct {
		in          string
		big, quirky bool
	}{
		{`{"a":[1,{"b":2}]}`, false, false},
		{`{"a":[1,{"b":1e999}]}`, true, false},
		{`[{"A":1}]`, false, true},
		{`{"x":{"b":1,"B":2}}`, false, true},
		{`{"x":{"b":1,"b":2}}`, false, true},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if v.HasBig() != tc.big || v.Quirky([]string{"a"}) != tc.quirky {
			t.Errorf("%s: HasBig %v, Quirky %v", tc.in, v.HasBig(), v.Quirky([]string{"a"}))
		}
	}
}
