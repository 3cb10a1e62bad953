package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Generated Delta tables for the protocol's table features: genDelta writes data files and
// log objects of any action, so each test states its log literally and computes the rows it
// expects from what it wrote.

type genDelta struct {
	t    *testing.T
	root string
}

func newGenDelta(t *testing.T) *genDelta {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_delta_log"), 0o755))
	return &genDelta{t: t, root: root}
}

// data writes a Parquet file of rows (arrow-go's JSON form) at rel (the log's URI form,
// percent-encoded) and returns its add action with the given partition values and any extra add fields.
func (g *genDelta) data(rel string, sc *arrow.Schema, rows []map[string]any, pv map[string]any, extra map[string]any) map[string]any {
	g.t.Helper()
	p, err := url.PathUnescape(rel)
	require.NoError(g.t, err)
	require.NoError(g.t, os.MkdirAll(filepath.Dir(filepath.Join(g.root, p)), 0o755))
	size := writeParquetRows(g.t, filepath.Join(g.root, p), sc, rows)
	add := map[string]any{"path": rel, "partitionValues": pv, "size": size, "modificationTime": 0, "dataChange": true,
		"stats": fmt.Sprintf(`{"numRecords":%d}`, len(rows))}
	for k, v := range extra {
		add[k] = v
	}
	return map[string]any{"add": add}
}

// log writes the log object name (under _delta_log/) with one JSON line per action.
func (g *genDelta) log(name string, actions ...any) {
	g.t.Helper()
	var b strings.Builder
	for _, a := range actions {
		j, err := json.Marshal(a)
		require.NoError(g.t, err)
		b.Write(append(j, '\n'))
	}
	require.NoError(g.t, os.WriteFile(filepath.Join(g.root, "_delta_log", name), []byte(b.String()), 0o644))
}

// commit writes version v's commit.
func (g *genDelta) commit(v int64, actions ...any) { g.log(fmt.Sprintf("%020d.json", v), actions...) }

// raw is a JSON action written as is.
type raw string

func (r raw) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// featureSchema is the table's schema: an identity column, a generated one, one with a
// default and an invariant, and timestamp_ntz data and partition columns.
const featureSchema = `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":false,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.highWaterMark":6,"delta.identity.allowExplicitInsert":false}},
{"name":"g","type":"long","nullable":true,"metadata":{"delta.generationExpression":"id * 2"}},
{"name":"s","type":"string","nullable":true,"metadata":{"CURRENT_DEFAULT":"'x'","delta.invariants":"{\"expression\":{\"expression\":\"s IS NOT NULL\"}}"}},
{"name":"ts","type":"timestamp_ntz","nullable":true,"metadata":{}},
{"name":"pts","type":"timestamp_ntz","nullable":true,"metadata":{}}]}`

// featureFileSchema is a data file's columns; rowID adds the materialized row-id column
// row tracking writes (a physical column outside the table schema).
func featureFileSchema(rowID bool) *arrow.Schema {
	fs := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}
	if rowID {
		fs = append(fs, arrow.Field{Name: "_row-id-col-0e5b", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// featureRow is row id of partition pts, in a data file (rowID: with its materialized row
// id) or as the table returns it (table: with the partition column).
func featureRow(id int64, pts string, rowID, table bool) map[string]any {
	m := map[string]any{"id": id, "g": id * 2, "s": fmt.Sprintf("s%d", id), "ts": fmt.Sprintf("2024-05-0%d 08:30:00", id)}
	if rowID {
		m["_row-id-col-0e5b"] = id - 1
	}
	if table {
		m["pts"] = pts
	}
	return m
}

// writeFeatureTable writes a table with every reader and writer feature this reader reads
// (PROTOCOL.md "Valid Feature Names in Table Features") and returns its folder and the rows
// of its latest version.
func writeFeatureTable(t *testing.T) (string, []string) {
	g := newGenDelta(t)
	writer := []string{"appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns", "identityColumns",
		"allowColumnDefaults", "rowTracking", "domainMetadata", "clustering", "inCommitTimestamp", "icebergCompatV1", "icebergCompatV2",
		"timestampNtz", "vacuumProtocolCheck", "v2Checkpoint"}
	proto := map[string]any{"protocol": map[string]any{"minReaderVersion": 3, "minWriterVersion": 7,
		"readerFeatures": []string{"timestampNtz", "vacuumProtocolCheck", "v2Checkpoint"}, "writerFeatures": writer}}
	meta := map[string]any{"metaData": map[string]any{"id": "features", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
		"schemaString": featureSchema, "partitionColumns": []string{"pts"}, "createdTime": 0, "configuration": map[string]any{
			"delta.appendOnly": "false", "delta.enableChangeDataFeed": "true", "delta.constraints.idpositive": "id > 0",
			"delta.enableRowTracking": "true", "delta.rowTracking.materializedRowIdColumnName": "_row-id-col-0e5b",
			"delta.rowTracking.materializedRowCommitVersionColumnName": "_row-commit-version-col-77a1",
			"delta.enableInCommitTimestamps":                           "true", "delta.checkpointPolicy": "v2", "delta.enableDeletionVectors": "false",
			"delta.columnMapping.mode": "none"}}}
	ict := func(ms int64, op string) raw {
		return raw(fmt.Sprintf(`{"commitInfo":{"inCommitTimestamp":%d,"timestamp":%d,"operation":%q}}`, ms, ms, op))
	}
	fa := featureFileSchema(false)
	fb := featureFileSchema(true)
	p1, p2 := "2024-05-01 00:00:00", "2024-05-02 12:00:00"
	a := g.data("pts=2024-05-01%2000%3A00%3A00/a.parquet", fa, []map[string]any{featureRow(1, p1, false, false), featureRow(2, p1, false, false)},
		map[string]any{"pts": p1}, map[string]any{"baseRowId": 0, "defaultRowCommitVersion": 0, "tags": map[string]any{"INSERTION_TIME": "1714550400000000"}})
	g.commit(0, ict(1714550400000, "CREATE TABLE"), proto, meta,
		raw(`{"domainMetadata":{"domain":"delta.clustering","configuration":"{\"clusteringColumns\":[[\"id\"]],\"domainName\":\"delta.clustering\"}","removed":false}}`),
		raw(`{"domainMetadata":{"domain":"delta.rowTracking","configuration":"{\"rowIdHighWaterMark\":1,\"domainName\":\"delta.rowTracking\"}","removed":false}}`), a)
	b := g.data("pts=2024-05-02%2012%3A00%3A00/b.parquet", fb, []map[string]any{featureRow(3, p2, true, false), featureRow(4, p2, true, false)},
		map[string]any{"pts": p2}, map[string]any{"baseRowId": 2, "defaultRowCommitVersion": 1})
	g.commit(1, ict(1714550500000, "WRITE"), b,
		raw(`{"cdc":{"path":"_change_data/cdc-00001.parquet","partitionValues":{"pts":"2024-05-02 12:00:00"},"size":100,"dataChange":false}}`),
		raw(`{"domainMetadata":{"domain":"delta.rowTracking","configuration":"{\"rowIdHighWaterMark\":3,\"domainName\":\"delta.rowTracking\"}","removed":false}}`))
	c := g.data("pts=2024-05-01%2000%3A00%3A00/c.parquet", fa, []map[string]any{featureRow(2, p1, false, false), featureRow(5, p1, false, false)},
		map[string]any{"pts": p1}, map[string]any{"baseRowId": 4, "defaultRowCommitVersion": 2})
	g.commit(2, ict(1714550600000, "DELETE"),
		raw(`{"remove":{"path":"pts=2024-05-01%2000%3A00%3A00/a.parquet","deletionTimestamp":1714550600000,"dataChange":true,"partitionValues":{"pts":"2024-05-01 00:00:00"},"size":1}}`),
		c, raw(`{"cdc":{"path":"_change_data/cdc-00002.parquet","partitionValues":{"pts":"2024-05-01 00:00:00"},"size":100,"dataChange":false}}`))
	return g.root, featureRows(t, [][2]any{{int64(2), p1}, {int64(3), p2}, {int64(4), p2}, {int64(5), p1}})
}

// featureRows is the table's rows (id, partition value) in canonRows form.
func featureRows(t *testing.T, ids [][2]any) []string {
	t.Helper()
	var rows []map[string]any
	for _, r := range ids {
		rows = append(rows, featureRow(r[0].(int64), r[1].(string), false, true))
	}
	sc := arrow.NewSchema(append(featureFileSchema(false).Fields(), arrow.Field{Name: "pts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}), nil)
	rec := wideRecord(t, sc, rows)
	defer rec.Release()
	return canonRows(rec)
}

// Test_deltaTableFeatures reads a table whose protocol names every feature this reader
// supports and whose log carries what they write (identity, generated, default and invariant
// column metadata, constraints, row tracking and clustering domain metadata, cdc actions,
// inCommitTimestamp commitInfo, a materialized row-id column in a data file), natively and
// in the wasm module: the rows are the live files', nothing of the features' metadata is
// read as data.
func Test_deltaTableFeatures(t *testing.T) {
	root, want := writeFeatureTable(t)
	for _, e := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		got, rep := readDelta(t, root, e, "")
		sameRows(t, fmt.Sprintf("%T", e), got, want)
		require.Equal(t, 2, rep.FilesAfterStats, "%T: live files", e)
		got, _ = readDelta(t, root, e, "pts = '2024-05-02T12:00:00'")
		sameRows(t, fmt.Sprintf("%T partition filter", e), got, want[1:3])
	}
}
