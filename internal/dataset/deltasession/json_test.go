package deltasession

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// optionsStd is how pq_open_delta's options were read: the oracle of FuzzOptions.
func optionsStd(b []byte) (Options, error) {
	var o Options
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&o)
	return o, err
}

// quirky: a member encoding/json matches otherwise (another case) or merges (repeated).
func quirky(b []byte, names ...string) bool {
	v, err := jsonv.Parse(b)
	if err != nil {
		v, _, err = jsonv.ParseFirst(b)
	}
	if err != nil {
		return false
	}
	return v.Quirky(names)
}

// FuzzOptions: ParseOptions takes the options encoding/json took, alike, and the listing
// answers alike.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{
		`{"version":3,"canList":true,"memoryCap":1048576,"tailSize":65536,"root":"https://h/t/","resume":"UFFERUxUQQ==","keepState":true}`,
		`{"asOf":1700000000000} trailing`, `{"bogus":1}`, `{"resume":[1,2,255]}`, `{"resume":[256]}`, `{"resume":"!"}`, `{"version":1.5}`,
		`null`, `[]`, `{"root":null,"version":null}`, `{"resume":"UFFE\nRUxUQQ=="}`,
		`[{"name":"00000000000000000000.json","size":3,"modTime":7},null]`, `[{"name":5}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		names := []string{"version", "asOf", "canList", "memoryCap", "tailSize", "root", "resume", "keepState", "name", "size", "modTime"}
		if quirky(b, names...) {
			return
		}
		o, err := ParseOptions(b)
		os, errs := optionsStd(b)
		if (err == nil) != (errs == nil) || err == nil && !reflect.DeepEqual(o, os) {
			t.Fatalf("%q:\njsonv %+v %v\nencoding/json %+v %v", b, o, err, os, errs)
		}
		l, err := parseListing(b)
		var ls []ListEntry
		errs = json.Unmarshal(b, &ls)
		if (err == nil) != (errs == nil) || err == nil && !reflect.DeepEqual(l, ls) {
			t.Fatalf("%q:\njsonv %+v %v\nencoding/json %+v %v", b, l, err, ls, errs)
		}
	})
}

func TestAppendObjects(t *testing.T) {
	if n := reflect.TypeOf(Object{}).NumField(); n != 6 {
		t.Fatalf("Object has %d fields: AppendObjects writes 6", n)
	}
	for _, objs := range [][]Object{nil, {}, {{Kind: "get", Path: "_delta_log/00000000000000000000.json"}},
		{{Kind: "list", Path: "a<&>\u2028\xff/", Absolute: true, Entry: "manifest \"x\"", Optional: true, Fresh: true}, {Kind: "get"}}} {
		want, _ := json.Marshal(objs)
		if got := AppendObjects(nil, objs); !bytes.Equal(got, want) {
			t.Fatalf("%s, want %s", got, want)
		}
	}
}

func TestAppendSnapshot(t *testing.T) {
	if n := reflect.TypeOf(Snapshot{}).NumField(); n != 9 {
		t.Fatalf("Snapshot has %d fields: AppendSnapshot writes 9", n)
	}
	for _, s := range []*Snapshot{{}, {Version: 3, Paths: []string{}, Table: tablescan.Options{Files: []tablescan.File{{Path: "a<b>", Size: 3}}, NoHive: true}},
		{Version: -1, Paths: []string{"x", "\xff"}, Absolute: []bool{false, true}, Metadata: "m&", Partitions: []string{"p=1"},
			State: []byte("PQDELTASTATE\x01\n{}\xff\x00"), Resumed: true, CommitsRead: 7}} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		table, _ := json.Marshal(&s.Table)
		if got := AppendSnapshot(nil, s, table); !bytes.Equal(got, want) {
			t.Fatalf("%s\nwant %s", got, want)
		}
	}
}
