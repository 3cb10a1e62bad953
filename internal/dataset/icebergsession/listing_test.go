package icebergsession

import (
	"encoding/json"
	"reflect"
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
		if v, err := jsonv.Parse(b); err == nil && v.Quirky([]string{"name", "size", "modTime"}) {
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
