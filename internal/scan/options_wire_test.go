package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

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

// The slow path keeps encoding/json's answers: its errors, its case-insensitive keys, its nulls.
func Test_decodeOptionsFallback(t *testing.T) {
	for _, s := range []string{
		`{"nope":1}`, `{"limit":"3"}`, `{"limit":1.5}`, `{"columns":"a"}`, `{"explain":1}`, `{"batchRows":1e3}`,
		`{"Limit":3}`, `{"limit":null}`, `{"where":"\u0041"}`, `{"limit":1,"limit":2}`, `{"limit":3} x`, `[`, `{"columns":[1]}`,
	} {
		_, ok := decodeOptionsFast([]byte(s))
		require.True(t, !ok, "the fast path took %s", s)
		got, gerr := DecodeOptions([]byte(s))
		want, werr := jsonOptions([]byte(s))
		require.True(t, fmt.Sprint(gerr) == fmt.Sprint(werr), "%s: error %v, want %v", s, gerr, werr)
		require.True(t, reflect.DeepEqual(got, want), "%s: %+v, want %+v", s, got, want)
	}
}

// FuzzDecodeOptions: DecodeOptions answers as encoding/json does (same error text, same value).
func FuzzDecodeOptions(f *testing.F) {
	for _, s := range []string{`{"explain":true,"fileSize":5,"metadata":true,"fileKey":"a\nb"}`, `{"columns":["a"],"where":"x > 1","limit":3}`, `{"disable":[]}`, `{"Limit":3}`, `{"batchRows":-1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gerr := DecodeOptions(raw)
		want, werr := jsonOptions(raw)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%q: error %v, want %v", raw, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %+v, want %+v", raw, got, want)
		}
	})
}
