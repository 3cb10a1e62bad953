package jsonv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestStrPtrMap(t *testing.T) {
	for _, doc := range []string{`{"m":{"a":"x","b":null,"c":""}}`, `{"m":{}}`, `{"m":null}`, `{}`, `{"m":{"a":"x","a":null}}`, `{"m":{"a":1}}`, `{"m":[]}`} {
		var want struct {
			M map[string]*string `json:"m"`
		}
		errStd := json.Unmarshal([]byte(doc), &want)
		v, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		o := NewObj(&v, "")
		got := o.StrPtrMap("m")
		if (o.Err() == nil) != (errStd == nil) {
			t.Fatalf("%s: error %v, encoding/json %v", doc, o.Err(), errStd)
		}
		if errStd == nil && !reflect.DeepEqual(got, want.M) {
			t.Fatalf("%s: %v, want %v", doc, got, want.M)
		}
	}
}

func TestHasBig(t *testing.T) {
	for doc, want := range map[string]bool{`[1,{"a":1e400}]`: true, `{"a":[-1e309]}`: true, `[1e308,"1e400"]`: false, `null`: false} {
		v, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if got := v.HasBig(); got != want || (json.Unmarshal([]byte(doc), &x) != nil) != want {
			t.Fatalf("%s: HasBig %v, want %v", doc, got, want)
		}
	}
}

// FuzzParseFirst: ParseFirst reads the value a json.Decoder's first Decode reads.
func FuzzParseFirst(f *testing.F) {
	for _, s := range []string{`{"a":1} x`, `null}`, ` [1,2]]`, `12`, `"a"b`, `{`, ``, `  `, `tru`, `1.5e3,`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _, err := ParseFirst(b)
		var raw json.RawMessage
		errStd := json.NewDecoder(bytes.NewReader(b)).Decode(&raw)
		if (err == nil) != (errStd == nil) {
			t.Fatalf("%q: error %v, encoding/json %v", b, err, errStd)
		}
		if err == nil && !bytes.Equal(v.Raw, raw) {
			t.Fatalf("%q: %q, encoding/json %q", b, v.Raw, raw)
		}
	})
}
