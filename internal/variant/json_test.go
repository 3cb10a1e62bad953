package variant

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_AppendJSON(t *testing.T) {
	empty := mdKeys()
	big := strings.Repeat("x", 70000)
	many := make([][]byte, 300)
	for i := range many {
		many[i] = vI8(int8(i))
	}
	manyJSON := "["
	for i := range many {
		if i > 0 {
			manyJSON += ","
		}
		manyJSON += strings.TrimSpace(string(appendInt(nil, int64(int8(i)))))
	}
	manyJSON += "]"
	tests := []struct {
		name  string
		meta  []byte
		value []byte
		want  string
	}{
		{"null", empty, vNull(), "null"},
		{"true", empty, vBool(true), "true"},
		{"false", empty, vBool(false), "false"},
		{"int8", empty, vI8(-128), "-128"},
		{"int16", empty, vI16(-300), "-300"},
		{"int32", empty, vI32(math.MaxInt32), "2147483647"},
		{"int64", empty, vI64(math.MinInt64), "-9223372036854775808"},
		{"double", empty, vF64(0.1), "0.1"},
		{"double integral", empty, vF64(100), "100.0"},
		{"double negative zero", empty, vF64(math.Copysign(0, -1)), "-0.0"},
		{"double zero", empty, vF64(0), "0.0"},
		{"double 1e20", empty, vF64(1e20), "100000000000000000000.0"},
		{"double 1e21", empty, vF64(1e21), "1e21"},
		{"double 1.5e21", empty, vF64(1.5e21), "1.5e21"},
		{"double 1e-6", empty, vF64(1e-6), "0.000001"},
		{"double 1e-7", empty, vF64(-1e-7), "-1e-7"},
		{"double 1.5e-5", empty, vF64(1.5e-5), "0.000015"},
		{"double big", empty, vF64(123456789012345678), "123456789012345680.0"},
		{"double min", empty, vF64(5e-324), "5e-324"},
		{"double max", empty, vF64(math.MaxFloat64), "1.7976931348623157e308"},
		{"double NaN", empty, vF64(math.NaN()), `"NaN"`},
		{"double +Inf", empty, vF64(math.Inf(1)), `"Infinity"`},
		{"float -Inf", empty, vF32(float32(math.Inf(-1))), `"-Infinity"`},
		{"float", empty, vF32(0.1), "0.10000000149011612"},
		{"float integral", empty, vF32(16777216), "16777216.0"},
		{"decimal4", empty, vDec4(2, 12345), "123.45"},
		{"decimal4 small", empty, vDec4(3, -50), "-0.050"},
		{"decimal4 scale 0", empty, vDec4(0, 5), "5"},
		{"decimal4 zero", empty, vDec4(2, 0), "0.00"},
		{"decimal8", empty, vDec8(4, -1234567890123456789), "-123456789012345.6789"},
		{"decimal16", empty, vDec16(2, 0xffffffffffffffff, 0x7fffffffffffffff), "1701411834604692317316873037158841057.27"},
		{"decimal16 min", empty, vDec16(0, 0, 0x8000000000000000), "-170141183460469231731687303715884105728"},
		{"decimal16 19 digits", empty, vDec16(1, 10000000000000000000, 0), "1000000000000000000.0"},
		{"decimal16 negative small", empty, vDec16(38, math.MaxUint64, math.MaxUint64), "-0.00000000000000000000000000000000000001"},
		{"date", empty, vDate(19724), `"2024-01-02"`},
		{"date epoch", empty, vDate(0), `"1970-01-01"`},
		{"date BC", empty, vDate(-735525), `"0045-03-15 (BC)"`},
		{"date year 0", empty, vDate(-719528), `"0001-01-01 (BC)"`},
		{"date large", empty, vDate(3789391), `"12345-01-01"`},
		{"date infinity", empty, vDate(math.MaxInt32), `"infinity"`},
		{"date -infinity", empty, vDate(-math.MaxInt32), `"-infinity"`},
		{"date min", empty, vDate(math.MinInt32), `"5877642-06-23 (BC)"`},
		{"timestamptz", empty, v8(primTimestamp, 1704164645500000), `"2024-01-02 03:04:05.5+00"`},
		{"timestamp ntz", empty, v8(primTimestampNT, 1704164645123456), `"2024-01-02 03:04:05.123456"`},
		{"timestamp whole", empty, v8(primTimestampNT, 1704164645000000), `"2024-01-02 03:04:05"`},
		{"timestamp before epoch", empty, v8(primTimestampNT, -1), `"1969-12-31 23:59:59.999999"`},
		{"timestamp BC", empty, v8(primTimestampNT, -63549356276500000), `"0045-03-15 (BC) 01:02:03.5"`},
		{"timestamp infinity", empty, v8(primTimestamp, math.MaxInt64), `"infinity"`},
		{"timestamp -infinity", empty, v8(primTimestampNT, -math.MaxInt64), `"-infinity"`},
		{"timestamp min", empty, v8(primTimestampNT, math.MinInt64), `"290309-12-21 (BC) 19:59:05.224192"`},
		{"timestamp nanos", empty, v8(primTimestampNN, 1704164645123456789), `"2024-01-02 03:04:05.123456789"`},
		{"timestamptz nanos", empty, v8(primTimestampNs, 1704164645120000000), `"2024-01-02 03:04:05.12+00"`},
		{"time", empty, v8(primTime, 11045250000), `"03:04:05.25"`},
		{"time midnight", empty, v8(primTime, 0), `"00:00:00"`},
		{"time 24h", empty, v8(primTime, 86400000000), `"24:00:00"`},
		{"binary", empty, vBin("\x00\xffab'\"\\\x7f ~"), `"\\x00\\xFFab\\x27\\x22\\x5C\\x7F ~"`},
		{"binary empty", empty, vBin(""), `""`},
		{"string", empty, vStr("a\"b\\c\x01\n\t\x7fé😀\u2028/\b\f\r\x1f\x00"), `"a\"b\\c\u0001\n\t` + "\x7fé😀\u2028/" + `\b\f\r\u001F\u0000"`},
		{"long string", empty, vStr(big), `"` + big + `"`},
		{"short string", empty, vShort("hi"), `"hi"`},
		{"short string empty", empty, vShort(""), `""`},
		{"uuid", empty, p(primUUID, 0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78, 0xab, 0xcd, 0xef, 0x00), `"12345678-1234-5678-1234-5678abcdef00"`},
		{"empty object", empty, obj(nil), "{}"},
		{"empty array", empty, arr(), "[]"},
		{"object", mdKeys("b", "a"), obj([]int{1, 0}, vI8(1), arr(vI8(1), vShort("x"), vNull())), `{"a":1,"b":[1,"x",null]}`},
		{"object values out of order", mdKeys("a", "b"), func() []byte {
			// Field ids sorted, values stored b first: offsets not monotonic.
			return []byte{basicObject, 2, 0, 1, 2, 0, 4, vI8(2)[0], 2, vI8(1)[0], 1}
		}(), `{"a":1,"b":2}`},
		{"nested object", mdKeys("z", "y"), obj([]int{1, 0}, obj([]int{0}, vNull()), vShort("q")), `{"y":{"z":null},"z":"q"}`},
		{"sorted metadata", md(1, true, "a", "b"), obj([]int{0, 1}, vI8(1), vI8(2)), `{"a":1,"b":2}`},
		{"unsorted metadata, sorted flag set", md(1, true, "b", "a"), obj([]int{1, 0}, vI8(1), vI8(2)), `{"a":1,"b":2}`},
		{"metadata offset size 4", md(4, false, "k"), obj([]int{0}, vI8(1)), `{"k":1}`},
		{"metadata offset size 3", md(3, false, "k"), obj([]int{0}, vI8(1)), `{"k":1}`},
		{"object large sizes", mdKeys("a", "b"), vObj(4, 4, true, []int{0, 1}, vI8(1), vI8(2)), `{"a":1,"b":2}`},
		{"object 2-byte offsets", mdKeys("s"), obj([]int{0}, vStr(big)), `{"s":"` + big + `"}`},
		{"array large sizes", empty, vArr(3, true, vI8(1), vNull()), `[1,null]`},
		{"array 300", empty, arr(many...), manyJSON},
		{"unsorted keys rendered sorted", mdKeys("é", "w", "b"), obj([]int{0, 1, 2}, vI8(1), vI8(2), vI8(3)), `{"b":3,"w":2,"é":1}`},
		{"key escaped", mdKeys("a\"\n"), obj([]int{0}, vNull()), `{"a\"\n":null}`},
		{"trailing bytes", empty, append(vI8(1), 9, 9), "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendJSON([]byte("<"), tc.meta, tc.value)
			require.NoError(t, err)
			require.Equal(t, "<"+tc.want, string(got))
		})
	}
}

func Test_AppendJSON_errors(t *testing.T) {
	deep := vNull()
	for i := 0; i < MaxDepth+1; i++ {
		deep = arr(deep)
	}
	okDeep := vNull()
	for i := 0; i < MaxDepth; i++ {
		okDeep = arr(okDeep)
	}
	_, err := AppendJSON(nil, mdKeys(), okDeep)
	require.NoError(t, err)
	// An array of 3 elements all pointing at one shared 3-element array, 30 levels deep,
	// would render 3^30 nulls.
	share := vNull()
	for i := 0; i < 30; i++ {
		share = append([]byte{basicArray, 3, 0, 0, 0, byte(len(share))}, share...)
	}
	tests := []struct {
		name  string
		meta  []byte
		value []byte
		want  error
	}{
		{"empty metadata", nil, vNull(), ErrMetadata},
		{"metadata version 2", []byte{2, 0, 0}, vNull(), ErrMetadata},
		{"metadata truncated size", []byte{0xc1, 0, 0}, vNull(), ErrMetadata},
		{"metadata offsets truncated", []byte{1, 5, 0}, vNull(), ErrMetadata},
		{"metadata strings truncated", []byte{1, 1, 0, 5, 'a'}, vNull(), ErrMetadata},
		{"metadata string offsets reversed", []byte{1, 2, 2, 0, 2, 'a', 'b'}, obj([]int{0}, vNull()), ErrMetadata},
		{"field id beyond dictionary", mdKeys("a"), obj([]int{1}, vNull()), ErrMetadata},
		{"empty value", mdKeys(), nil, ErrValue},
		{"unknown primitive", mdKeys(), p(21), ErrValue},
		{"truncated int64", mdKeys(), vI64(1)[:5], ErrValue},
		{"truncated string", mdKeys(), vStr("abc")[:6], ErrValue},
		{"truncated string length", mdKeys(), vStr("abc")[:3], ErrValue},
		{"truncated short string", mdKeys(), vShort("abc")[:3], ErrValue},
		{"string length huge", mdKeys(), []byte{primString << 2, 0xff, 0xff, 0xff, 0xff}, ErrValue},
		{"invalid UTF-8", mdKeys(), vStr("a\xffb"), ErrValue},
		{"invalid UTF-8 short", mdKeys(), vShort("\xc3"), ErrValue},
		{"invalid UTF-8 key", mdKeys("\xff"), obj([]int{0}, vNull()), ErrValue},
		{"decimal scale 39", mdKeys(), vDec4(39, 1), ErrValue},
		{"time negative", mdKeys(), v8(primTime, -1), ErrValue},
		{"time beyond 24h", mdKeys(), v8(primTime, 86400000001), ErrValue},
		{"duplicate keys", mdKeys("a"), obj([]int{0, 0}, vNull(), vNull()), ErrValue},
		{"duplicate keys by name", mdKeys("a", "a"), obj([]int{0, 1}, vNull(), vNull()), ErrValue},
		{"bad field id after unsorted keys", mdKeys("a", "b"), obj([]int{1, 0, 7}, vNull(), vNull(), vNull()), ErrMetadata},
		{"repeated keys, unsorted", mdKeys("a", "b"), obj([]int{1, 0, 1}, vNull(), vNull(), vNull()), ErrValue},
		{"object truncated ids", mdKeys("a"), obj([]int{0}, vNull())[:2], ErrValue},
		{"object truncated offsets", mdKeys("a"), obj([]int{0}, vNull())[:3], ErrValue},
		{"object fields truncated", mdKeys("a"), obj([]int{0}, vNull())[:4], ErrValue},
		{"object count truncated", mdKeys("a"), []byte{basicObject | 1<<6, 1}, ErrValue},
		{"object offset at end", mdKeys("a"), []byte{basicObject, 1, 0, 1, 1, 0}, ErrValue},
		{"array offset beyond", mdKeys(), []byte{basicArray, 1, 2, 1, 0}, ErrValue},
		{"array child truncated", mdKeys(), []byte{basicArray, 1, 0, 2, primInt16 << 2, 0}, ErrValue},
		{"array count huge", mdKeys(), []byte{basicArray | 1<<4, 0xff, 0xff, 0xff, 0xff, 0}, ErrValue},
		{"too deep", mdKeys(), deep, ErrTooDeep},
		{"shared children", mdKeys(), share, ErrValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendJSON([]byte("x"), tc.meta, tc.value)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			require.Equal(t, "x", string(got))
		})
	}
}
