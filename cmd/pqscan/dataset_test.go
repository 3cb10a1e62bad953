package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// writeIDs writes a Parquet file of one int64 column "id" with arrow-go.
func writeIDs(t *testing.T, p string, ids ...int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
}

// Test_catDataset: cat reads a folder, a glob and a list of files as one table, with the Hive
// partition column after the file columns; a partition predicate picks files.
func Test_catDataset(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "day=2024-01-01", "part-0.parquet")
	b := filepath.Join(root, "day=2024-01-02", "part-0.parquet")
	writeIDs(t, a, 1, 2)
	writeIDs(t, b, 3)
	require.NoError(t, os.WriteFile(filepath.Join(root, "_SUCCESS"), nil, 0o644)) // skipped, as Spark does
	all := "id,day\n1,2024-01-01\n2,2024-01-01\n3,2024-01-02\n"
	for _, args := range [][]string{
		{"cat", root + "/", "--format", "csv"},
		{"cat", root + "/*/*.parquet", "--format", "csv"},
		{"cat", a, b, "--format", "csv"},
	} {
		code, out, errOut := runCLI(t, args...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, all, out)
	}
	code, out, errOut := runCLI(t, "cat", root+"/", "--where", "day = DATE '2024-01-02'", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "id,day\n3,2024-01-02\n", out)
	code, out, _ = runCLI(t, "schema", root+"/")
	require.Equal(t, 0, code)
	require.True(t, strings.Contains(out, "day: date32"), out)
	code, out, errOut = runCLI(t, "inspect", a, b) // a dataset's footers and compaction advice
	require.Equal(t, 0, code, errOut)
	require.True(t, strings.Contains(out, "dataset: 2 files") && strings.Contains(out, "advice: compact-"), out)
}

// Test_catDatasetWasm: the same table read inside the module (--engine wasm) gives the same
// output.
func Test_catDatasetWasm(t *testing.T) {
	root := t.TempDir()
	writeIDs(t, filepath.Join(root, "day=2024-01-01", "part-0.parquet"), 1, 2)
	writeIDs(t, filepath.Join(root, "day=2024-01-02", "part-0.parquet"), 3)
	_, native, _ := runCLI(t, "cat", root+"/", "--format", "csv", "--where", "id >= 2")
	code, wasm, errOut := runCLI(t, "cat", root+"/", "--format", "csv", "--where", "id >= 2", "--engine", "wasm")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "id,day\n2,2024-01-01\n3,2024-01-02\n", native)
	require.Equal(t, native, wasm)
}

// Test_catDelta: cat and schema read a Delta table folder, its latest snapshot or an older one
// (--delta-version), with the partition column after the data columns, and without the rows a
// deletion vector removes.
func Test_catDelta(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta") + "/"
	code, out, errOut := runCLI(t, "cat", dir, "--format", "csv", "--columns", "number", "--where", "number >= 2")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines[1:])
	require.Equal(t, "number\n2\n3\n4\n5", strings.Join(lines, "\n"))
	code, out, errOut = runCLI(t, "cat", dir, "--format", "csv", "--columns", "number", "--delta-version", "0")
	require.Equal(t, 0, code, errOut)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines[1:])
	require.Equal(t, "number\n1\n2\n3", strings.Join(lines, "\n"))
	part := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_partitioned", "delta") + "/"
	code, out, _ = runCLI(t, "schema", part)
	require.Equal(t, 0, code)
	require.True(t, strings.Index(out, "number") < strings.Index(out, "letter"), out)
	dv := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "table-with-dv-small") + "/"
	code, out, errOut = runCLI(t, "cat", dv)
	require.Equal(t, 0, code, errOut)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, `{"value":1} {"value":2} {"value":3} {"value":4} {"value":5} {"value":6} {"value":7} {"value":8}`, strings.Join(lines, " "),
		"rows 0 and 9 are deleted by its vector")
}

// Test_catIceberg: cat and count read an Iceberg table from its folder or its metadata file,
// a renamed column under its current name, natively and over the wasm engine; a table's
// deletion vectors remove its deleted rows from the count.
func Test_catIceberg(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "icebird__spark_rename_column")
	for _, src := range []string{root + "/", filepath.Join(root, "metadata", "v3.metadata.json")} {
		for _, engine := range []string{"native", "wasm"} {
			code, out, errOut := runCLI(t, "cat", src, "--engine", engine, "--format", "csv", "--columns", "id,event_date")
			require.Equal(t, 0, code, errOut)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			sort.Strings(lines[1:])
			require.Equal(t, "id,event_date\n1,2022-01-01\n2,2022-01-01\n3,\n4,2022-01-02", strings.Join(lines, "\n"), src, engine)
		}
		code, out, errOut := runCLI(t, "count", src)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "4\n", out)
	}
	// A v3 table whose deletion vectors (two Puffin blobs) remove rows: 8 live rows, the
	// count both oracles of the corpus give.
	dv := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__deletion_vectors") + "/"
	for _, engine := range []string{"native", "wasm"} {
		code, out, errOut := runCLI(t, "count", dv, "--engine", engine)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "8\n", out, engine)
	}
}

// Test_countIcebergTimeTravel: --snapshot-id and --as-of choose an Iceberg table's snapshot
// (here an empty first one, then six rows); a time before the first snapshot and both flags
// together fail.
func Test_countIcebergTimeTravel(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__no_partitioning") + "/"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--snapshot-id", "4752200045239310452"}, "0"},
		{[]string{"--snapshot-id", "6247215453669530946"}, "6"},
		{[]string{"--as-of", "2025-03-10T16:17:28.246Z"}, "0"},
		{[]string{"--as-of", "2025-03-10 16:17:29"}, "6"},
	} {
		code, out, errOut := runCLI(t, append([]string{"count", root}, c.args...)...)
		require.Equal(t, 0, code, c.args, errOut)
		require.Equal(t, c.want, strings.TrimSpace(out), c.args)
	}
	for _, args := range [][]string{{"--as-of", "2025-03-10"}, {"--as-of", "2025-03-11", "--snapshot-id", "4752200045239310452"}, {"--snapshot-id", "7"}} {
		code, _, errOut := runCLI(t, append([]string{"count", root}, args...)...)
		require.True(t, code != 0, args)
		require.True(t, strings.Contains(errOut, "snapshot"), args, errOut)
	}
}

// Test_catDatasetSchema: --by-position reads a file whose writer renamed the column into the
// table's column, --union-schema makes it a column of its own; by default it is null (its
// rows have no "id"). Over the wasm engine too.
func Test_catDatasetSchema(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a.parquet"), filepath.Join(root, "b.parquet")
	writeIDs(t, a, 1, 2)
	writeIDs(t, b, 3)
	data, err := os.ReadFile(b)
	require.NoError(t, err)
	// The same file with its column renamed: "id" and "ix" have the same length in the footer.
	require.NoError(t, os.WriteFile(b, bytes.ReplaceAll(data, []byte("id"), []byte("ix")), 0o644))
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "id\n1\n2\n\n"},
		{[]string{"--by-position"}, "id\n1\n2\n3\n"},
		{[]string{"--union-schema"}, "id,ix\n1,\n2,\n,3\n"},
		{[]string{"--by-position", "--where", "id >= 2"}, "id\n2\n3\n"},
		{[]string{"--union-schema", "--where", "ix IS NULL"}, "id,ix\n1,\n2,\n"},
	} {
		for _, engine := range []string{"native", "wasm"} {
			args := append([]string{"cat", a, b, "--format", "csv", "--engine", engine}, c.flags...)
			code, out, errOut := runCLI(t, args...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, c.want, out, strings.Join(args, " "))
		}
	}
}

// Test_countDataset: pqscan count over a folder, a glob, a list, an http(s) folder listed
// with ListObjectsV2 and a Delta table prints the table's count (the sum of its files'),
// native and wasm; a partition predicate counts only its files.
func Test_countDataset(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "day=2024-01-01", "part-0.parquet")
	b := filepath.Join(root, "day=2024-01-02", "part-0.parquet")
	writeIDs(t, a, 1, 2, 3, 4)
	writeIDs(t, b, 5, 6, 7)
	srv := faultserver.New(faultserver.Options{Dir: root, ListPageSize: 1})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	delta := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta") + "/"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{root + "/"}, "7\n"},
		{[]string{root + "/*/*.parquet", "--where", "id >= 3"}, "5\n"},
		{[]string{a, b, "--where", "id >= 3 AND day = DATE '2024-01-02'"}, "3\n"},
		{[]string{root + "/", "--where", "day = DATE '2024-01-01'", "--offset", "1"}, "3\n"},
		{[]string{base + "/", "--where", "id < 6"}, "5\n"},
		{[]string{delta}, "5\n"},
		{[]string{delta, "--delta-version", "0", "--where", "number >= 2"}, "2\n"},
	} {
		for _, engine := range []string{"native", "wasm"} {
			args := append([]string{"count", "--engine", engine}, c.args...)
			code, out, errOut := runCLI(t, args...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, c.want, out, strings.Join(args, " "))
		}
	}
}

// Test_catDatasetDefersSchema: cat over an http(s) folder reads no footer at open (the table
// schema comes from the scan's first kept file), so a query of one partition fetches no byte
// of another partition's file; schema still reads the first file's footer.
func Test_catDatasetDefersSchema(t *testing.T) {
	root := t.TempDir()
	writeIDs(t, filepath.Join(root, "day=2024-01-01", "part-0.parquet"), 1, 2)
	writeIDs(t, filepath.Join(root, "day=2024-01-02", "part-0.parquet"), 3)
	srv := faultserver.New(faultserver.Options{Dir: root})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	code, out, errOut := runCLI(t, "cat", base+"/", "--where", "day = DATE '2024-01-02'", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "id,day\n3,2024-01-02\n", out)
	st := srv.Stats()
	require.Equal(t, int64(0), st["/day=2024-01-01/part-0.parquet"].Requests, "requests for the other day's file")
	require.True(t, st["/day=2024-01-02/part-0.parquet"].Requests > 0)
	srv.Reset()
	code, out, _ = runCLI(t, "schema", base+"/")
	require.Equal(t, 0, code)
	require.True(t, strings.Contains(out, "id: int64") && strings.Contains(out, "day: date32"), out)
}

// Test_catDeltaAsOf: --delta-as-of reads the snapshot committed at or before a time (here by
// the commit files' modification times), in every form the flag takes; a time before the
// first commit fails naming it, as do an unparsable time and a version given too.
func Test_catDeltaAsOf(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755))
	for _, rel := range []string{"_delta_log/00000000000000000000.json", "_delta_log/00000000000000000001.json",
		"part-00000-3c9f01c2-6db4-4cbc-a744-dbc2f79eb78a-c000.snappy.parquet", "part-00000-4ae8c002-c1fa-4afe-abaa-75e0962184e0-c000.snappy.parquet"} {
		b, err := os.ReadFile(filepath.Join(src, rel))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), b, 0o644))
	}
	for v, at := range []time.Time{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)} {
		p := filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))
		require.NoError(t, os.Chtimes(p, at, at))
	}
	for _, c := range []struct{ asOf, want string }{
		{"2024-01-15", "number\n1\n2\n3"},
		{"2024-01-31 23:59:59", "number\n1\n2\n3"},
		{"2024-02-01T00:59:59.999+01:00", "number\n1\n2\n3"},
		{"2024-02-01T00:00:00Z", "number\n1\n2\n3\n4\n5"},
	} {
		code, out, errOut := runCLI(t, "cat", dir+"/", "--format", "csv", "--columns", "number", "--delta-as-of", c.asOf)
		require.Equal(t, 0, code, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		sort.Strings(lines[1:])
		require.Equal(t, c.want, strings.Join(lines, "\n"), c.asOf)
	}
	code, out, errOut := runCLI(t, "count", dir+"/", "--delta-as-of", "2024-01-15")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "3", strings.TrimSpace(out))
	for _, c := range []struct{ args []string }{
		{[]string{"--delta-as-of", "2023-12-31"}}, {[]string{"--delta-as-of", "yesterday"}},
		{[]string{"--delta-as-of", "2024-01-15", "--delta-version", "0"}},
	} {
		code, _, errOut := runCLI(t, append([]string{"cat", dir + "/"}, c.args...)...)
		require.True(t, code != 0, "%v must fail", c.args)
		require.True(t, errOut != "", "%v: no message", c.args)
	}
	_, _, errOut = runCLI(t, "cat", dir+"/", "--delta-as-of", "2023-12-31")
	require.True(t, strings.Contains(errOut, "no commit at or before 2023-12-31T00:00:00Z"), errOut)
}
