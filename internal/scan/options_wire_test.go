package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/jsonw"
	"github.com/pqscan/pqscan/internal/require"
)

// jsonOptions is the reference: encoding/json with unknown fields refused (pq_open before
// DecodeOptions had its fast path).
func jsonOptions(raw []byte) (Options, error) {
	var o Options
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&o)
	return o, err
}

// Every field of Options is on the fast path: an object setting all of them (a value of each
// field's kind) is taken by flatjson and decodes as encoding/json decodes it. A field added to
// Options without a case in setWire fails here (it would still decode, through the slow path).
func Test_decodeOptionsFast(t *testing.T) {
	rt := reflect.TypeOf(Options{})
	var parts []string
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		require.True(t, name != "" && name != "-", "field %s has no JSON name", f.Name)
		var v string
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64:
			v = fmt.Sprint(100 + i)
		case reflect.String:
			v = fmt.Sprintf(`"v%d \"q\"\n"`, i)
		case reflect.Bool:
			v = "true"
		case reflect.Slice:
			v = fmt.Sprintf(`["a%d","b"]`, i)
		default:
			t.Fatalf("field %s: kind %s has no fast path", f.Name, f.Type.Kind())
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, v))
	}
	raw := []byte("{" + strings.Join(parts, ",") + "}")
	got, ok := decodeOptionsFast(raw)
	require.True(t, ok, "the fast path refused %s", string(raw))
	want, err := jsonOptions(raw)
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(got, want), "fast %+v\njson %+v", got, want)

	// What the bridges send: taken by the fast path, decoded alike.
	for _, s := range []string{
		`{"explain":true,"fileSize":239400000,"metadata":true,"fileKey":"http://127.0.0.1:1/data/e.parquet\n\"v1-2\"\n2"}`,
		`{"columns":["event_type","value"],"where":"tenant_id = 1020 AND event_time >= TIMESTAMP '2026-10-16T12:00:00Z'","fileSize":12,"fileKey":"k"}`,
		`{"limit":100,"fileSize":12}`, `{"columns":[]}`, `{}`,
	} {
		got, ok := decodeOptionsFast([]byte(s))
		require.True(t, ok, "the fast path refused %s", s)
		want, err := jsonOptions([]byte(s))
		require.NoError(t, err)
		require.True(t, reflect.DeepEqual(got, want), "%s: fast %+v, json %+v", s, got, want)
	}
}

// The slow path answers as encoding/json did, but for names in other case and data after the
// object, which it refuses; its errors say which member and what it wants.
func Test_decodeOptionsFallback(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{in: `{"nope":1}`, err: `unknown field "nope"`}, {in: `{"limit":"3"}`, err: "limit: want an integer, got a string"},
		{in: `{"limit":1.5}`, err: "limit: want an integer, got a number"}, {in: `{"columns":"a"}`, err: "columns: want an array of strings, got a string"},
		{in: `{"explain":1}`, err: "explain: want a boolean, got a number"}, {in: `{"batchRows":1e3}`, err: "batchRows: want an integer, got a number"},
		{in: `{"Limit":3}`, err: `unknown field "Limit"`}, {in: `{"limit":null}`}, {in: `{"where":"\u0041"}`}, {in: `{"limit":1,"limit":2}`},
		{in: `{"limit":3} x`, err: "trailing data"}, {in: `[`, err: "unexpected end"}, {in: `{"columns":[1]}`, err: "columns[0]: want a string, got a number"},
		{in: `{"columns":["a"],"columns":null,"where":null}`}, {in: `{"columns":[null,"b"]}`}, {in: `null`}, {in: `[]`, err: "want an object, got an array"},
		{in: `{"columns":[1],"columns":["a"]}`, err: "columns[0]: want a string"},
	} {
		_, ok := decodeOptionsFast([]byte(tc.in))
		require.True(t, !ok, "the fast path took %s", tc.in)
		got, gerr := DecodeOptions([]byte(tc.in))
		if tc.err != "" {
			require.True(t, gerr != nil && strings.Contains(gerr.Error(), tc.err), "%s: error %v, want %q", tc.in, gerr, tc.err)
			continue
		}
		want, werr := jsonOptions([]byte(tc.in))
		require.NoError(t, werr)
		require.NoError(t, gerr)
		require.True(t, reflect.DeepEqual(got, want), "%s: %+v, want %+v", tc.in, got, want)
	}
}

// FuzzDecodeOptions: DecodeOptions takes and refuses what encoding/json did (but names in
// other case and data after the object, which it refuses), with the same values.
func FuzzDecodeOptions(f *testing.F) {
	for _, s := range []string{`{"explain":true,"fileSize":5,"metadata":true,"fileKey":"a\nb"}`, `{"columns":["a"],"where":"x > 1","limit":3}`,
		`{"disable":[]}`, `{"Limit":3}`, `{"batchRows":-1}`, `{"columns":null,"limit":null}`, `{"columns":[null]}`, `{"limit":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gerr := DecodeOptions(raw)
		want, werr := jsonOptions(raw)
		if (gerr == nil) != (werr == nil) {
			if werr == nil && (!json.Valid(raw) || caseVariant(raw)) {
				return
			}
			t.Fatalf("%q: error %v, want %v", raw, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %+v, want %+v", raw, got, want)
		}
	})
}

// caseVariant reports whether raw has a member that is a field's JSON name only without
// regard to case (encoding/json took it).
func caseVariant(raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	var o Options
	for k := range m {
		if o.field(k) == (optField{}) {
			return true
		}
	}
	return false
}

// AppendMembers writes what encoding/json's Marshal writes, for options with random fields
// set, and its list of names follows the struct's fields.
func Test_appendMembers(t *testing.T) {
	rt := reflect.TypeOf(Options{})
	if rt.NumField() != len(wireNames) {
		t.Fatalf("Options has %d fields, wireNames %d", rt.NumField(), len(wireNames))
	}
	for i := 0; i < rt.NumField(); i++ {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != wireNames[i] {
			t.Fatalf("field %d: tag %q, wireNames %q", i, name, wireNames[i])
		}
	}
	for seed := 0; seed < 200; seed++ {
		var o Options
		v := reflect.ValueOf(&o).Elem()
		for i := 0; i < v.NumField(); i++ {
			if (seed>>(i%8))&1 == 0 && seed%5 != 0 {
				continue
			}
			switch f := v.Field(i); f.Kind() {
			case reflect.Int64, reflect.Int:
				f.SetInt(int64(seed*7919+i) - 500)
			case reflect.String:
				f.SetString(fmt.Sprintf("s<%d>\u2028\"", seed+i))
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Slice:
				if seed%3 == 0 {
					f.Set(reflect.ValueOf([]string{}))
				} else {
					f.Set(reflect.ValueOf([]string{"a", fmt.Sprint(seed)}))
				}
			}
		}
		w := jsonw.Begin(nil)
		o.AppendMembers(&w)
		got := w.End()
		want, err := json.Marshal(&o)
		require.NoError(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d:\n%s\n%s", seed, got, want)
		}
	}
}
