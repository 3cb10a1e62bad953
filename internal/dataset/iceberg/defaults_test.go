package iceberg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_ParseDefault reads the spec's Appendix D JSON single-value examples for every
// primitive type the fill writes, and refuses what does not read as the type.
func Test_ParseDefault(t *testing.T) {
	tests := []struct {
		name, typ, raw string
		want           prune.Value
		err            error
	}{
		{name: "boolean", typ: "boolean", raw: `true`, want: prune.BoolValue(true)},
		{name: "int", typ: "int", raw: `34`, want: prune.IntValue(34)},
		{name: "long past 2^53", typ: "long", raw: `9007199254740993`, want: prune.IntValue(9007199254740993)},
		{name: "float", typ: "float", raw: `1.1`, want: prune.FloatValue(float64(float32(1.1)))},
		{name: "double", typ: "double", raw: `-2.25e3`, want: prune.FloatValue(-2250)},
		{name: "double NaN", typ: "double", raw: `"NaN"`, want: prune.FloatValue(math.NaN())},
		{name: "double -Infinity", typ: "double", raw: `"-Infinity"`, want: prune.FloatValue(math.Inf(-1))},
		{name: "decimal", typ: "decimal(9,2)", raw: `"14.20"`, want: prune.DecimalInt64(1420)},
		{name: "negative decimal", typ: "decimal(4, 2)", raw: `"-0.05"`, want: prune.DecimalInt64(-5)},
		{name: "date", typ: "date", raw: `"2017-11-16"`, want: prune.DateValue(17486)},
		{name: "time", typ: "time", raw: `"22:31:08.123456"`, want: prune.TimeValue(81068123456)},
		{name: "time in ms", typ: "time", raw: `"22:31:08.1"`, want: prune.TimeValue(81068100000)},
		{name: "timestamp", typ: "timestamp", raw: `"2017-11-16T22:31:08.123456"`, want: prune.TimestampValue(1510871468123456)},
		{name: "timestamptz", typ: "timestamptz", raw: `"2017-11-16T22:31:08.123456+00:00"`, want: prune.TimestampValue(1510871468123456)},
		{name: "timestamptz other zone", typ: "timestamptz", raw: `"2017-11-16T23:31:08.123456+01:00"`, want: prune.TimestampValue(1510871468123456)},
		{name: "timestamp_ns", typ: "timestamp_ns", raw: `"2017-11-16T22:31:08.123456789"`, want: prune.TimestampValue(1510871468123456789)},
		{name: "timestamptz_ns", typ: "timestamptz_ns", raw: `"2017-11-16T22:31:08.123456789+00:00"`, want: prune.TimestampValue(1510871468123456789)},
		{name: "string", typ: "string", raw: `"iceberg"`, want: prune.StringValue("iceberg")},
		{name: "binary", typ: "binary", raw: `"000102ff"`, want: prune.BytesValue([]byte{0, 1, 2, 0xff})},
		{name: "int as string", typ: "int", raw: `"34"`, err: ErrMalformed},
		{name: "int out of range", typ: "int", raw: `2147483648`, err: ErrMalformed},
		{name: "fraction as long", typ: "long", raw: `1.5`, err: ErrMalformed},
		{name: "boolean as number", typ: "boolean", raw: `1`, err: ErrMalformed},
		{name: "binary not hex", typ: "binary", raw: `"0g"`, err: ErrMalformed},
		{name: "decimal too precise", typ: "decimal(4,2)", raw: `"1.234"`, err: ErrMalformed},
		{name: "date out of range", typ: "date", raw: `"2017-02-30"`, err: ErrMalformed},
		{name: "time past midnight", typ: "time", raw: `"24:00:00"`, err: ErrMalformed},
		{name: "timestamp with a zone", typ: "timestamp", raw: `"2017-11-16T22:31:08+00:00"`, err: ErrMalformed},
		{name: "timestamptz without one", typ: "timestamptz", raw: `"2017-11-16T22:31:08"`, err: ErrMalformed},
		{name: "uuid", typ: "uuid", raw: `"f79c3e09-677c-4bbd-a479-3f349cb785e7"`, err: ErrUnsupportedFeature},
		{name: "not JSON", typ: "int", raw: `{`, err: ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDefault(tc.typ, json.RawMessage(tc.raw))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if math.IsNaN(tc.want.F) {
				require.True(t, math.IsNaN(got.F))
				return
			}
			c, ok := prune.Compare(got, tc.want)
			require.True(t, ok && c == 0, got, tc.want)
		})
	}
}

// Test_Defaults: top-level defaults by column name; a null default is none; a nested field's
// default, or one on a type the fill cannot write, refuses the table naming the column.
func Test_Defaults(t *testing.T) {
	s, err := schemaJSON([]byte(`{"type":"struct","fields":[
		{"id":1,"name":"a","required":false,"type":"int","initial-default":7},
		{"id":2,"name":"b","required":false,"type":"string","initial-default":null},
		{"id":3,"name":"c","required":false,"type":"string"}]}`))
	require.NoError(t, err)
	d, err := Defaults(s.Fields)
	require.NoError(t, err)
	require.Equal(t, 1, len(d))
	require.Equal(t, int64(7), d["a"].I)

	for _, tc := range []struct{ name, schema, want string }{
		{name: "nested", want: `"x" of "s"`, schema: `{"type":"struct","fields":[{"id":1,"name":"s","required":false,
			"type":{"type":"struct","fields":[{"id":2,"name":"x","required":false,"type":"int","initial-default":1}]}}]}`},
		{name: "uuid", want: `"u"`, schema: `{"type":"struct","fields":[{"id":1,"name":"u","required":false,"type":"uuid",
			"initial-default":"f79c3e09-677c-4bbd-a479-3f349cb785e7"}]}`},
		{name: "malformed", want: `"i"`, schema: `{"type":"struct","fields":[{"id":1,"name":"i","required":false,"type":"int","initial-default":"x"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := schemaJSON([]byte(tc.schema))
			require.NoError(t, err)
			_, err = Defaults(s.Fields)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// FuzzParseDefault: a default is the writer's JSON; any of it, for any type, parses or fails
// without a panic.
func FuzzParseDefault(f *testing.F) {
	for _, s := range [][2]string{{"int", "34"}, {"time", `"22:31:08.1"`}, {"timestamptz", `"2017-11-16T22:31:08+00:00"`},
		{"decimal(9,2)", `"14.20"`}, {"binary", `"00ff"`}, {"double", `"NaN"`}} {
		f.Add(s[0], []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, p string, raw []byte) {
		got, err := ParseDefault(p, raw)
		want, werr := parseDefaultStd(p, raw)
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonv %v, encoding/json %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) && !(math.IsNaN(got.F) && math.IsNaN(want.F)) {
			t.Fatalf("read differently: %+v, %+v", got, want)
		}
	})
}

// parseDefaultStd is ParseDefault as it read the JSON with encoding/json: FuzzParseDefault's
// oracle.
func parseDefaultStd(p string, raw json.RawMessage) (prune.Value, error) {
	js := bytes.TrimSpace(raw)
	text, str := string(js), len(js) > 0 && js[0] == '"'
	if str && json.Unmarshal(js, &text) != nil || !str && !json.Valid(js) {
		return prune.Value{}, ErrMalformed
	}
	// The rest of ParseDefault reads only the text and whether it was a string: quote it
	// back so that the JSON reading is the one compared.
	if str {
		js, _ = json.Marshal(text)
	}
	return ParseDefault(p, js)
}

// decodeHex reads what hex.DecodeString reads, and refuses what it refuses.
func Test_decodeHex(t *testing.T) {
	for _, s := range []string{"", "00", "0aFf", "abc", "zz", "0g", "DEADbeef", "é1", "1 "} {
		want, err := hex.DecodeString(s)
		got, ok := decodeHex(s)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Errorf("%q: %x %v, hex %x %v", s, got, ok, want, err)
		}
	}
}
