package delta

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// mappedSchema is a column-mapped schema: a top-level column, a struct with a field, an array
// of structs and a map whose values are structs, each struct field with its physical name
// and id.
const mappedSchema = `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},
{"name":"s","type":{"type":"struct","fields":[
  {"name":"a","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-3"}}]},
 "nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}},
{"name":"l","type":{"type":"array","elementType":{"type":"struct","fields":[
  {"name":"x","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":5,"delta.columnMapping.physicalName":"col-5"}}]},"containsNull":true},
 "nullable":true,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"col-4"}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[
  {"name":"y","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":7,"delta.columnMapping.physicalName":"col-7"}}]},"valueContainsNull":true},
 "nullable":true,"metadata":{"delta.columnMapping.id":6,"delta.columnMapping.physicalName":"col-6"}},
{"name":"p","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":8,"delta.columnMapping.physicalName":"col-8"}}]}`

// mapping lists each struct field's path with its physical name and id, as "path=name#id".
func mapping(fs []schema.Field, prefix string) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s%s=%s#%d", prefix, f.Name, f.PhysicalName, f.FieldID))
		for _, c := range f.Children {
			if f.Type.Kind == schema.Struct {
				out = append(out, mapping([]schema.Field{c}, prefix+f.Name+".")...)
			} else {
				out = append(out, mapping(c.Children, prefix+f.Name+"."+c.Name+".")...)
			}
		}
	}
	return out
}

func Test_applyColumnMapping(t *testing.T) {
	all := []string{"id=col-1#1", "s=col-2#2", "s.a=col-3#3", "l=col-4#4", "l.element.x=col-5#5", "m=col-6#6", "m.value.y=col-7#7", "p=col-8#8"}
	tests := []struct {
		name   string
		mode   string
		schema string
		want   []string
		err    error
		msg    string
	}{
		{name: "id mode keeps names and ids", mode: "id", schema: mappedSchema, want: all},
		{name: "name mode drops the ids", mode: "name", schema: mappedSchema,
			want: []string{"id=col-1#0", "s=col-2#0", "s.a=col-3#0", "l=col-4#0", "l.element.x=col-5#0", "m=col-6#0", "m.value.y=col-7#0", "p=col-8#0"}},
		{name: "mode none reads by the schema's names", mode: "none", schema: mappedSchema,
			want: []string{"id=#0", "s=#0", "s.a=#0", "l=#0", "l.element.x=#0", "m=#0", "m.value.y=#0", "p=#0"}},
		{name: "no mode is none", mode: "", schema: mappedSchema,
			want: []string{"id=#0", "s=#0", "s.a=#0", "l=#0", "l.element.x=#0", "m=#0", "m.value.y=#0", "p=#0"}},
		{name: "name mode without a nested physical name", mode: "name", err: ErrSchema, msg: `"l.element.x" has no delta.columnMapping.physicalName`,
			schema: strings.Replace(mappedSchema, `"delta.columnMapping.physicalName":"col-5"`, `"other":1`, 1)},
		{name: "id mode without an id", mode: "id", err: ErrSchema, msg: `"s.a" has no delta.columnMapping.id`,
			schema: strings.Replace(mappedSchema, `"delta.columnMapping.id":3,`, ``, 1)},
		{name: "two columns with one physical name", mode: "name", err: ErrSchema,
			msg:    `columns "s.a" and "p" have the same delta.columnMapping.physicalName "col-3"`,
			schema: strings.Replace(mappedSchema, `physicalName":"col-8"`, `physicalName":"col-3"`, 1)},
		{name: "a nested field sharing a top-level column's physical name", mode: "id", err: ErrSchema,
			msg:    `columns "id" and "m.value.y" have the same delta.columnMapping.physicalName "col-1"`,
			schema: strings.Replace(mappedSchema, `physicalName":"col-7"`, `physicalName":"col-1"`, 1)},
		{name: "two columns with one id", mode: "id", err: ErrSchema, msg: `columns "l" and "p" have the same delta.columnMapping.id 4`,
			schema: strings.Replace(mappedSchema, `"delta.columnMapping.id":8,`, `"delta.columnMapping.id":4,`, 1)},
		{name: "ids are not read in name mode", mode: "name", want: []string{"id=col-1#0", "s=col-2#0", "s.a=col-3#0", "l=col-4#0",
			"l.element.x=col-5#0", "m=col-6#0", "m.value.y=col-7#0", "p=col-8#0"},
			schema: strings.Replace(mappedSchema, `"delta.columnMapping.id":8,`, `"delta.columnMapping.id":4,`, 1)},
		{name: "unknown mode", mode: "position", schema: mappedSchema, err: ErrUnsupportedFeature, msg: `columnMapping (mode "position")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := ParseSchema(tc.schema)
			require.NoError(t, err)
			err = applyColumnMapping(fs, tc.mode)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorContains(t, err, tc.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, mapping(fs, ""))
		})
	}
}

func Test_ParseSchema_badMapping(t *testing.T) {
	for _, md := range []string{
		`{"delta.columnMapping.physicalName":""}`,
		`{"delta.columnMapping.physicalName":7}`,
		`{"delta.columnMapping.id":"7"}`,
		`{"delta.columnMapping.id":0}`,
		`{"delta.columnMapping.id":1.5}`,
		`{"delta.columnMapping.id":4294967296}`,
	} {
		_, err := ParseSchema(`{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":` + md + `}]}`)
		require.ErrorIs(t, err, ErrSchema, md)
	}
}

// Test_Snapshot_columnMapping: partition values and statistics are found by physical name
// and kept by logical name; a key under the logical name is not the column's.
func Test_Snapshot_columnMapping(t *testing.T) {
	for _, mode := range []string{"name", "id"} {
		t.Run(mode, func(t *testing.T) {
			meta := fmt.Sprintf(`{"metaData":{"id":"t","format":{"provider":"parquet"},"schemaString":%q,"partitionColumns":["p"],"configuration":{"delta.columnMapping.mode":%q}}}`, mappedSchema, mode)
			commit := `{"protocol":{"minReaderVersion":2,"minWriterVersion":5}}
` + meta + `
{"add":{"path":"a.parquet","partitionValues":{"col-8":"x"},"size":1,"modificationTime":0,"dataChange":true,"stats":"{\"numRecords\":3,\"minValues\":{\"col-1\":1,\"col-2\":{\"col-3\":-4}},\"maxValues\":{\"col-1\":9,\"col-2\":{\"col-3\":4}},\"nullCount\":{\"col-1\":0,\"col-2\":{\"col-3\":1}}}"}}
{"add":{"path":"b.parquet","partitionValues":{"p":"y"},"size":1,"modificationTime":0,"dataChange":true,"stats":"{\"numRecords\":1,\"minValues\":{\"id\":1},\"maxValues\":{\"id\":1}}"}}
`
			acts, err := ParseCommit("0.json", []byte(commit))
			require.NoError(t, err)
			r := NewReplay()
			require.NoError(t, r.Commit(0, acts))
			s, err := r.Snapshot()
			require.NoError(t, err)
			require.Equal(t, "p", s.PartitionColumns[0].Name)
			require.Equal(t, prune.StringValue("x"), s.Files[0].Partition[0].V)
			require.True(t, s.Files[1].Partition[0].Null) // keyed by the logical name: not the column's
			id, ok := s.Files[0].Stats.Column("id")
			require.True(t, ok)
			require.Equal(t, prune.IntValue(1), id.Min)
			require.Equal(t, prune.IntValue(9), id.Max)
			sa, ok := s.Files[0].Stats.Column("s.a")
			require.True(t, ok)
			require.Equal(t, prune.IntValue(-4), sa.Min)
			require.Equal(t, int64(1), sa.NullCount)
			_, ok = s.Files[1].Stats.Column("id")
			require.True(t, !ok)
			require.Equal(t, "col-1", s.Schema[0].PhysicalName)
		})
	}
}

// The delta-rs table in name mode: its partition column is keyed by physical name in the log.
func Test_DeltaRS_columnMapping(t *testing.T) {
	dir := tableDir(t, "delta-rs/table_with_column_mapping")
	s, _, _, err := loadPlanned(t, dir, -1)
	require.NoError(t, err)
	require.Equal(t, "Company Very Short", s.PartitionColumns[0].Name)
	var parts []string
	for _, f := range s.Files {
		parts = append(parts, string(f.Partition[0].V.B))
	}
	require.Equal(t, []string{"BME", "BMS"}, parts)
	st, ok := s.Files[1].Stats.Column("Super Name")
	require.True(t, ok)
	require.Equal(t, prune.StringValue("Anthony Johnson"), st.Min)
	require.Equal(t, "col-3877fd94-0973-4941-ac6b-646849a1ff65", s.DataSchema()[0].PhysicalName)
}
