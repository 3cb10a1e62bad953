//go:build !wasm && !pqscan_lean

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// tableOptionsStd is pq_open_table's options as encoding/json read them: the oracle of
// FuzzTableOptions.
func tableOptionsStd(raw []byte) (tablescan.Options, error) {
	var opts tablescan.Options
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&opts)
	return opts, err
}

// wireNames are the member names of the options' wire form, for Quirky.
var wireNames = strings.Fields(tableMembers + ` fileSize columns where limit offset batchRows memoryCap tailSize
	dictionaryArrays roundTripBytes maxGap count minMax rowIndex orderBy explain noPrune lateMaterializationThreshold
	disable noVerifyCrc metadata fileKey rowsFrom rowsTo planUnits path size key version partition stats rows deleted
	fill V Null Kind I U F B HasMin HasMax Min Max MinExact MaxExact NullCount NumValues NaNCount OnlyNaN Geo XMin YMin
	XMax YMax Unit UTC Scale Precision Physical TypeLength Name Type Nullable Metadata ID BitWidth Signed ByteWidth TZ
	Elem Fields KeysSorted Dictionary field-id names fields`)

var tableOptionsSeeds = []string{
	`{"files":[{"path":"a.parquet","size":10,"rows":3,"deleted":[0,1],"partition":[{"V":{"Kind":2,"I":5},"Null":false},null],
		"stats":{"x":{"HasMin":true,"Min":{"Kind":4,"F":"NaN"},"Max":{"Kind":4,"F":1.5},"NullCount":2,"Geo":{"XMin":1,"YMax":2}}},
		"fill":{"c":{"V":{"Kind":6,"B":"AAE="}},"d":{"Null":true}}}],"root":"r","noHive":true,"columns":["x"],"limit":4}`,
	`{"table":[{"Name":"l","Type":{"ID":12,"Elem":{"Name":"element","Type":{"ID":2,"BitWidth":32,"Signed":true},"Nullable":true,
		"Metadata":[["PARQUET:field_id","3"]]}},"Nullable":true,"Metadata":[["a","b","c"],null,["x"]]}],
		"partitionColumns":[{"Name":"p","Type":{"Kind":2,"Physical":1}}],"statTypes":{"p":{"Kind":2,"Scale":-1}},
		"nameMapping":[{"field-id":1,"names":["a"],"fields":[{"names":["b"]}]}],"zonelessUTC":true,"foldCase":true,
		"byPosition":true,"unionSchema":true,"filesFrom":1,"filesTo":2}`,
	`{"files":[{"fill":{"c":{"V":{"Kind":300}}}}]}`, `{"files":[{"fill":{"c":{"V":{"F":null}}}}]}`,
	`{"files":[{"fill":{"c":{"V":{"B":[1,null,255],"other":1}}}}]}`, `{"files":[{"bogus":1}]}`, `{"bogus":1}`,
	`{"statTypes":{"p":{"Scale":2147483648}}}`, `{"files":[{"stats":{"x":{"Min":{"U":18446744073709551615}}}}]}`,
	`{"files":null,"table":[]} trailing`, `null`, `[]`, `{"limit":"x"}`, `{"table":[{"Metadata":[[1]]}]}`,
	`{"files":[{"stats":{"x":{"Max":{"F":"+Inf"}},"y":null}}]}`, `{"files":[{"fill":{"c":{"V":{"B":"!"}}}}]}`,
	`{"files root":1}`, `{"files":[{"path size":1}]}`, `{"":1}`, `{"table":[{"Type":{"ID Signed":1}}]}`,
}

// FuzzTableOptions: decodeTableOptions accepts the options encoding/json accepted and reads
// them alike, but for case-folded and repeated member names.
func FuzzTableOptions(f *testing.F) {
	for _, s := range tableOptionsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// The options are the first JSON value (what follows is not read), as for the Decoder.
		if v, _, err := jsonv.ParseFirst(raw); err == nil && v.Quirky(wireNames) {
			return
		}
		got, err := decodeTableOptions(raw)
		want, werr := tableOptionsStd(raw)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: jsonv %v, encoding/json %v", raw, err, werr)
		}
		if err != nil {
			return
		}
		gb, err1 := json.Marshal(got)
		wb, err2 := json.Marshal(want)
		if err1 != nil || err2 != nil || !bytes.Equal(gb, wb) {
			t.Fatalf("%q: read differently:\n%s\n%s", raw, gb, wb)
		}
		if !bytes.Contains(gb, []byte("NaN")) && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read differently:\n%#v\n%#v", raw, got, want)
		}
		// What pq_snapshot writes of a table is encoding/json's Marshal, byte for byte.
		if tb, err := appendTableOptions(nil, &got); err != nil || !bytes.Equal(tb, gb) {
			t.Fatalf("options written differently (%v):\n%s\n%s", err, tb, gb)
		}
		// What pq_table_fields writes is encoding/json's Marshal, byte for byte.
		if fb, wb := appendFields(nil, got.Table), mustMarshal(t, got.Table); !bytes.Equal(fb, wb) {
			t.Fatalf("fields written differently:\n%s\n%s", fb, wb)
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// Test_appendFields: pq_table_fields' JSON is what encoding/json's Marshal wrote, for nested
// types, metadata, escapes, and nil against empty lists.
func Test_appendFields(t *testing.T) {
	el := arrowipc.Field{Name: "element", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}, Nullable: true}
	kv := arrowipc.Field{Name: "key_value", Type: arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{
		{Name: "key", Type: arrowipc.DataType{ID: arrowipc.Utf8}}, el}}}
	for _, fs := range [][]arrowipc.Field{
		nil, {},
		{{Name: "a<&>\u2028\"", Type: arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Nanosecond, TZ: "UTC"}, Metadata: [][2]string{{"k", "v\x00"}}}},
		{{Name: "l", Type: arrowipc.DataType{ID: arrowipc.List, Elem: &el}, Metadata: [][2]string{}},
			{Name: "m", Type: arrowipc.DataType{ID: arrowipc.Map, Elem: &kv, KeysSorted: true, Dictionary: true}},
			{Name: "d", Type: arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 38, Scale: 9, ByteWidth: 16}, Nullable: true},
			{Name: "s", Type: arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{}}}},
	} {
		require.Equal(t, string(mustMarshal(t, fs)), string(appendFields(nil, fs)))
	}
}

// Test_appendResult: pq_snapshot's discovery result is what encoding/json's Marshal wrote,
// with and without a snapshot, and a bounding box JSON cannot hold is refused as Marshal
// refused it.
func Test_appendResult(t *testing.T) {
	opts, err := decodeTableOptions([]byte(tableOptionsSeeds[0]))
	require.NoError(t, err)
	opts2, err := decodeTableOptions([]byte(tableOptionsSeeds[1]))
	require.NoError(t, err)
	snap := &deltasession.Snapshot{Version: 3, Table: opts, Paths: []string{"a b"}, Absolute: []bool{false, true},
		Metadata: "m.json", Partitions: []string{"p=1"}, State: []byte{1, 2}, Resumed: true, CommitsRead: 2}
	for _, r := range []*discover.Result{
		{Format: "files", Files: []discover.File{{Key: "a", URL: "http://x/a", Size: 3, ETag: `"e"`}, {Key: "b"}},
			Dir: "d", Listed: []discover.File{{Key: "../c"}}},
		{Format: "", Files: []discover.File{}},
		{Snapshot: snap, Format: "delta"},
		{Snapshot: &deltasession.Snapshot{Table: opts2}, Format: "iceberg"},
	} {
		got, err := appendResult(r)
		require.NoError(t, err)
		require.Equal(t, string(mustMarshal(t, r)), string(got))
	}
	bad := tablescan.Options{Files: []tablescan.File{{Stats: map[string]prune.ColStats{"g": {Geo: &geo.Rect{XMin: math.NaN()}}}}}}
	_, werr := json.Marshal(&bad)
	_, err = appendTableOptions(nil, &bad)
	if werr == nil || err == nil {
		t.Fatalf("NaN in a bounding box: %v, encoding/json %v", err, werr)
	}
}

// FuzzDiscoverOptions: pq_open_discover's options read as encoding/json's strict Decoder
// read them, but for case-folded and repeated member names.
func FuzzDiscoverOptions(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://x/","pathStyle":true,"path":"p","abs":"/a","glob":true,"list":true,"metadata":"m",
			"version":3,"snapshotId":-1,"asOf":5,"rootURL":"r","pathMap":{"a":"b","c":null},"tailSize":9,
			"memoryCap":10,"maxPages":2,"resume":"AAE=","keepState":true}`,
		`{"version":null} x`, `{"maxPages":1.5}`, `{"resume":[1,2]}`, `{"bogus":1}`, `[]`, `{"pathMap":[]}`,
	} {
		f.Add([]byte(s))
	}
	names := []string{"url", "pathStyle", "path", "abs", "glob", "list", "metadata", "version", "snapshotId",
		"asOf", "rootURL", "pathMap", "tailSize", "memoryCap", "maxPages", "resume", "keepState"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if v, _, err := jsonv.ParseFirst(raw); err == nil && v.Quirky(names) {
			return
		}
		got, err := parseDiscoverOptions(raw)
		var want discover.Options
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		werr := dec.Decode(&want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: jsonv %v, encoding/json %v", raw, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read differently:\n%#v\n%#v", raw, got, want)
		}
	})
}
