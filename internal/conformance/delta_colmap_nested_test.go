package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_deltaColumnMappingNested: in id mode the struct fields inside a list's elements and a
// map's values are matched by their field ids, not by name or position (the file writes them
// in another order, under other names); the element, key and value themselves match by
// position (a list has one element, a map one key and one value), whatever nested ids
// (delta.columnMapping.nested.ids) the log and the file carry.
func Test_deltaColumnMappingNested(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_delta_log"), 0o755))
	id := func(n int) arrow.Metadata {
		return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(n)})
	}
	f := func(name string, n int, typ arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: typ, Nullable: true, Metadata: id(n)}
	}
	// The file: the element struct holds y (4) then x (3), the value struct v (7) then u (6),
	// each under a name the log does not know; the element, key and value carry nested ids.
	elem := arrow.StructOf(f("f4", 4, arrow.BinaryTypes.String), f("f3", 3, arrow.PrimitiveTypes.Int32))
	val := arrow.StructOf(f("f7", 7, arrow.PrimitiveTypes.Int32), f("f6", 6, arrow.PrimitiveTypes.Int32))
	mt := arrow.MapOfWithMetadata(arrow.BinaryTypes.String, id(101), val, id(102))
	sc := arrow.NewSchema([]arrow.Field{
		f("f1", 1, arrow.PrimitiveTypes.Int64),
		f("f2", 2, arrow.ListOfField(arrow.Field{Name: "element", Type: elem, Nullable: true, Metadata: id(100)})),
		f("f5", 5, mt),
	}, nil)
	rows := []map[string]any{
		{"f1": 1, "f2": []any{map[string]any{"f4": "a", "f3": 10}, map[string]any{"f4": "b", "f3": 11}},
			"f5": []any{map[string]any{"key": "k", "value": map[string]any{"f7": 70, "f6": 60}}}},
		{"f1": 2, "f2": []any{map[string]any{"f4": "c", "f3": 12}}, "f5": []any{}},
	}
	size := writeParquetRows(t, filepath.Join(root, "part-0.parquet"), sc, rows)
	md := func(phys string, n int, nested map[string]int) map[string]any {
		m := map[string]any{"delta.columnMapping.id": n, "delta.columnMapping.physicalName": phys}
		if nested != nil {
			m["delta.columnMapping.nested.ids"] = nested
		}
		return m
	}
	field := func(name string, typ any, m map[string]any) map[string]any {
		return map[string]any{"name": name, "type": typ, "nullable": true, "metadata": m}
	}
	structOf := func(fs ...any) map[string]any { return map[string]any{"type": "struct", "fields": fs} }
	schemaString, err := json.Marshal(structOf(
		field("id", "long", md("col-id", 1, nil)),
		field("l", map[string]any{"type": "array", "containsNull": true, "elementType": structOf(
			field("x", "integer", md("col-x", 3, nil)), field("y", "string", md("col-y", 4, nil)))},
			md("col-l", 2, map[string]int{"col-l.element": 100})),
		field("m", map[string]any{"type": "map", "keyType": "string", "valueContainsNull": true, "valueType": structOf(
			field("u", "integer", md("col-u", 6, nil)), field("v", "integer", md("col-v", 7, nil)))},
			md("col-m", 5, map[string]int{"col-m.key": 101, "col-m.value": 102})),
	))
	require.NoError(t, err)
	var log []byte
	for _, a := range []map[string]any{
		{"protocol": map[string]any{"minReaderVersion": 2, "minWriterVersion": 5}},
		{"metaData": map[string]any{"id": "nested", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
			"schemaString": string(schemaString), "partitionColumns": []string{}, "createdTime": 0,
			"configuration": map[string]any{"delta.columnMapping.mode": "id", "delta.columnMapping.maxColumnId": "7"}}},
		{"add": map[string]any{"path": "part-0.parquet", "partitionValues": map[string]any{}, "size": size, "modificationTime": 0, "dataChange": true}},
	} {
		line, err := json.Marshal(a)
		require.NoError(t, err)
		log = append(append(log, line...), '\n')
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "_delta_log", "00000000000000000000.json"), log, 0o644))
	want := []string{
		`id=1|l=[{"x":10,"y":"a"},{"x":11,"y":"b"}]|m=[{"key":"k","value":{"u":60,"v":70}}]`,
		`id=2|l=[{"x":12,"y":"c"}]|m=[]`,
	}
	for _, e := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		got, _, err := deltaRowsWith(t, root, pqscan.Options{Engine: e}, pqscan.ScanOptions{})
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}
