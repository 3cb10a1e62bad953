package delta

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_ActionsFromRows feeds rows in the generic form a Parquet decoder produces (maps as
// key/value lists, integers of several widths, []byte strings) and checks that they give the
// same actions as the equivalent JSON commit lines.
func Test_ActionsFromRows(t *testing.T) {
	rows := []map[string]any{
		{"protocol": map[string]any{"minReaderVersion": int32(1), "minWriterVersion": int32(2), "readerFeatures": nil, "writerFeatures": nil}, "add": nil, "metaData": nil},
		{"metaData": map[string]any{
			"id": "x", "format": map[string]any{"provider": "parquet", "options": []any{}},
			"schemaString":     []byte(`{"type":"struct","fields":[{"name":"p","type":"date","nullable":true,"metadata":{}},{"name":"n","type":"long","nullable":true,"metadata":{}}]}`),
			"partitionColumns": []any{"p"},
			"configuration":    []any{map[string]any{"key": "delta.appendOnly", "value": "false"}},
		}},
		{"add": map[string]any{
			"path":             "p=2024-01-01/a.parquet",
			"partitionValues":  []any{map[string]any{"key": "p", "value": "2024-01-01"}},
			"size":             int64(10),
			"modificationTime": int64(1),
			"dataChange":       false,
			"stats":            `{"numRecords":2,"minValues":{"n":1},"maxValues":{"n":9},"nullCount":{"n":0}}`,
			"stats_parsed":     map[string]any{"numRecords": int64(2)},
		}},
		{"remove": map[string]any{"path": "old.parquet", "deletionTimestamp": int64(5), "dataChange": true}},
		{"txn": nil, "add": nil}, // all null: skipped
	}
	got, err := ActionsFromRows("00000000000000000001.checkpoint.parquet", rows)
	require.NoError(t, err)
	want, err := ParseCommit("c", []byte(lineProtocol+"\n"+lineMetadata+"\n"+addLine("p=2024-01-01/a.parquet", `"2024-01-01"`)+"\n"+
		`{"remove":{"path":"old.parquet","deletionTimestamp":5,"dataChange":true}}`))
	require.NoError(t, err)
	require.Equal(t, len(want), len(got))
	require.Equal(t, *want[2].Add.Stats, *got[2].Add.Stats)
	require.Equal(t, *want[2].Add.PartitionValues["p"], *got[2].Add.PartitionValues["p"])
	require.Equal(t, want[0].Protocol, got[0].Protocol)
	require.Equal(t, want[1].Metadata.SchemaString, got[1].Metadata.SchemaString)
	require.Equal(t, "false", got[1].Metadata.Config("delta.appendOnly"))
	require.Equal(t, want[3].Remove, got[3].Remove)

	r := NewReplay()
	require.NoError(t, r.Checkpoint(1, got))
	s, err := r.Snapshot()
	require.NoError(t, err)
	require.Equal(t, 1, len(s.Files))

	_, err = ActionsFromRows("cp.parquet", []map[string]any{{"add": map[string]any{"size": int64(1)}}})
	require.ErrorIs(t, err, ErrMalformed)
	require.ErrorContains(t, err, "cp.parquet row 0")
	_, err = ActionsFromRows("cp.parquet", []map[string]any{{"add": map[string]any{"path": "a", "size": func() {}}}})
	require.ErrorIs(t, err, ErrMalformed)
}
