package discover

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzWalkKeys: a walk's answer reads as encoding/json read it into a []string.
func FuzzWalkKeys(f *testing.F) {
	for _, s := range []string{`["a/b.parquet","c"]`, `null`, `[]`, `[null,"x"]`, `["\u00e9\ud800"]`, `[1]`, `{}`, `["a"] x`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := walkKeys(data)
		var want []string
		werr := json.Unmarshal(data, &want)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) && err == nil {
			t.Fatalf("%q: %q %v, encoding/json %q %v", data, got, err, want, werr)
		}
	})
}

// FuzzListEntries: a "list" answer is what encoding/json writes for the []ListEntry.
func FuzzListEntries(f *testing.F) {
	f.Add("_delta_log/00000000000000000000.json", int64(12), int64(0), true)
	f.Add("<&>\u2028\xff", int64(-1), int64(1700000000000), false)
	f.Fuzz(func(t *testing.T, name string, size, mod int64, two bool) {
		for _, es := range [][]ListEntry{nil, {}, {{Name: name, Size: size, ModTime: mod}}} {
			if two && es != nil {
				es = append(es, ListEntry{Name: name + "/x", Size: mod, ModTime: size})
			}
			want, _ := json.Marshal(es)
			if got := listEntries(es); string(got) != string(want) {
				t.Fatalf("%s, encoding/json %s", got, want)
			}
		}
	})
}
