package variant_test

import (
	"encoding/json"
	"path"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/internal/variant"
)

var (
	variantUnshred    = variant.Unshred
	variantAppendJSON = variant.AppendJSON
)

// Test_hyparquetShredded reads hyparquet's shredded VARIANT files and compares each row with
// hyparquet's expected JSON. The one convention that differs: hyparquet renders timestamps as
// JavaScript Date ISO strings with milliseconds ("2024-01-30T00:00:00.000Z"), DuckDB (and this
// package) as "2024-01-30 00:00:00+00", and dates likewise (DuckDB: "2024-01-30"); expected key order is not compared (hyparquet lists
// shredded fields first, the spec and DuckDB sort them).
func Test_hyparquetShredded(t *testing.T) {
	files := []string{}
	for _, p := range testcorpus.Files(t, ".parquet") {
		if strings.HasPrefix(p, "hyparquet/shredded-") {
			files = append(files, p)
		}
	}
	if len(files) != 8 {
		t.Errorf("found %d hyparquet/shredded-* files, want 8", len(files))
	}
	for _, p := range files {
		t.Run(path.Base(p), func(t *testing.T) {
			var want [][]any
			if err := json.Unmarshal(testcorpus.Read(t, strings.TrimSuffix(p, ".parquet")+".json"), &want); err != nil {
				t.Fatal(err)
			}
			recs := readRecords(t, testcorpus.Read(t, p))
			col := "var"
			if len(recs[0].Schema().FieldIndices("v")) == 1 {
				col = "v"
			}
			got := variantJSON(t, recs, col)
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i, row := range want {
				w := row[len(row)-1]
				var g any
				if got[i] != "" {
					if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
						t.Fatalf("row %d: %v in %s", i, err, got[i])
					}
				}
				g = isoTimestamps(g, w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("row %d: got %s, want %v", i, got[i], w)
				}
			}
		})
	}
}

var isoRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// isoTimestamps rewrites got's timestamp strings into hyparquet's ISO form wherever want has one.
func isoTimestamps(got, want any) any {
	switch w := want.(type) {
	case string:
		s, ok := got.(string)
		if !ok || !isoRe.MatchString(w) {
			return got
		}
		for _, layout := range []string{"2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
			if ts, err := time.Parse(layout, s); err == nil {
				return ts.UTC().Format("2006-01-02T15:04:05.000Z")
			}
		}
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			for k, v := range g {
				g[k] = isoTimestamps(v, w[k])
			}
		}
	case []any:
		if g, ok := got.([]any); ok && len(g) == len(w) {
			for i := range g {
				g[i] = isoTimestamps(g[i], w[i])
			}
		}
	}
	return got
}
