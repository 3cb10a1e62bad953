//go:build !wasm && !pqscan_lean

package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// FuzzIcebergOptions: parseIcebergOptions takes the options encoding/json took (strictly, the
// first value of the input), alike; inputs with a member in another case or repeated, which
// encoding/json matches or merges, are skipped.
func FuzzIcebergOptions(f *testing.F) {
	for _, s := range []string{
		`{"metadata":"metadata/v3.metadata.json","canList":true,"snapshotId":5,"where":"a > 1","asOf":17,"pathMap":{"s3://b/t":"https://h/t","x":null},"listOnly":true}`,
		`{"bogus":1}`, `{"snapshotId":1.5}`, `{"pathMap":[]}`, `{"pathMap":{"a":1}}`, `null`, `5`, `{} x`, `{"asOf":null}`,
	} {
		f.Add([]byte(s))
	}
	names := []string{"metadata", "canList", "snapshotId", "where", "asOf", "pathMap", "listOnly"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, _, err := jsonv.ParseFirst(b); err == nil {
			for i, k := range v.Keys {
				for _, n := range append(names, v.Keys[:i]...) {
					if k != n && strings.EqualFold(k, n) || k == n && i > 0 && contains(v.Keys[:i], k) {
						return
					}
				}
			}
		}
		o, err := parseIcebergOptions(b)
		var os icebergsession.Options
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		errs := dec.Decode(&os)
		if (err == nil) != (errs == nil) || err == nil && !reflect.DeepEqual(o, os) {
			t.Fatalf("%q:\njsonv %+v %v\nencoding/json %+v %v", b, o, err, os, errs)
		}
	})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
