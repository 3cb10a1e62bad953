package jsonv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzStrict: Unknown and Bytes accept what a json.Decoder with DisallowUnknownFields takes
// into a struct of one []byte member, alike (inputs with a member name in another case or
// repeated, which encoding/json matches or merges, are skipped).
func FuzzStrict(f *testing.F) {
	for _, s := range []string{`{"b":"UFE="}`, `{"b":"UF\nE="}`, `{"b":"!"}`, `{"b":[1,null,255]}`, `{"b":[256]}`, `{"b":[1.5]}`,
		`{"b":null}`, `{"c":1}`, `{"b":5}`, `{}`, `null`, `[]`, `{"b":""}`, `{"b":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil || v.Kind == Object && (len(v.Keys) > 1 || len(v.Keys) == 1 && v.Keys[0] != "b" && (v.Keys[0] == "B")) {
			return
		}
		var want struct {
			B []byte `json:"b"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		errStd := dec.Decode(&want)
		o := NewObj(&v, "")
		err = o.Unknown("b")
		got := o.Bytes("b")
		if err == nil {
			err = o.Err()
		}
		if (err == nil) != (errStd == nil) || err == nil && !reflect.DeepEqual(got, want.B) {
			t.Fatalf("%s: %v %v, encoding/json %v %v", b, got, err, want.B, errStd)
		}
	})
}
