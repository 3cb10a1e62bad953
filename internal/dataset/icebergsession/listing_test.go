package icebergsession

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// FuzzListedNames: listedNames accepts the listings encoding/json accepted as
// []deltasession.ListEntry and gives their names, but for member names matched without
// regard to case (or repeated) there.
func FuzzListedNames(f *testing.F) {
	for _, s := range []string{`[{"name":"v1.metadata.json","size":10,"modTime":5},{"name":"version-hint.text"}]`, `[]`, `null`,
		`[null,{"name":null,"size":null}]`, `{}`, `[{"size":1.5}]`, `[{"modTime":"x"}]`, `[{"name":1}]`, `[1]`, `[{"extra":[1,{}]}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := jsonv.Parse(b); err == nil && foldedNames(&v) {
			return
		}
		got, err := listedNames(b)
		var ents []deltasession.ListEntry
		werr := json.Unmarshal(b, &ents)
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonv %v, encoding/json %v", err, werr)
		}
		var want []string
		for _, e := range ents {
			want = append(want, e.Name)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q, want %q", got, want)
		}
	})
}

// foldedNames reports a member name that encoding/json and jsonv match differently.
func foldedNames(v *jsonv.Value) bool {
	for i, k := range v.Keys {
		for _, n := range []string{"name", "size", "modTime"} {
			if k != n && strings.EqualFold(k, n) {
				return true
			}
		}
		for _, k2 := range v.Keys[:i] {
			if strings.EqualFold(k, k2) {
				return true
			}
		}
	}
	for i := range v.Elems {
		if foldedNames(&v.Elems[i]) {
			return true
		}
	}
	return false
}
