package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func Test_run(t *testing.T) {
	root := testcorpus.Dir(t)
	plain := root + "/parquet-testing/data/alltypes_plain.parquet"
	corrupt := root + "/parquet-testing/data/datapage_v1-corrupt-checksum.parquet"
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // exact, when set
		contains   string // substring of stdout, when set
		stderrHas  string // substring of stderr, when set
		stderrLine bool   // stderr must be exactly one line
	}{
		{name: "cat jsonl flags after SRC", args: []string{"cat", plain, "--limit", "2", "--columns", "id,bool_col,timestamp_col"},
			stdout: `{"id":4,"bool_col":true,"timestamp_col":"2009-03-01T00:00:00.000000Z"}
{"id":5,"bool_col":false,"timestamp_col":"2009-03-01T00:01:00.000000Z"}
`},
		{name: "cat flags before SRC", args: []string{"cat", "--limit=1", "--offset", "7", "--columns=id", plain},
			stdout: "{\"id\":1}\n"},
		{name: "cat csv", args: []string{"cat", root + "/hyparquet/uuid.parquet", "--format", "csv"},
			stdout: "uuid\n550e8400-e29b-41d4-a716-446655440000\n6ba7b810-9dad-11d1-80b4-00c04fd430c8\nf47ac10b-58cc-4372-a567-0e02b2c3d479\n"},
		{name: "cat table", args: []string{"cat", plain, "--format", "table", "--columns", "id,double_col", "--limit", "2"},
			stdout: "id  double_col\n--  ----------\n4   0\n5   10.1\n"},
		{name: "cat decimal exact", args: []string{"cat", root + "/parquet-testing/data/int32_decimal.parquet", "--limit", "1"},
			stdout: "{\"value\":\"1.00\"}\n"},
		{name: "explain prints the workload's costs", args: []string{"explain", plain, "--where", "id = 4", "--where", "id > 100"},
			contains: "id > 100"},
		{name: "schema nested", args: []string{"schema", root + "/parquet-testing/data/nested_maps.snappy.parquet"},
			stdout: "a: map\n  key: utf8 not null\n  value: map\n    key: int32 not null\n    value: bool not null\nb: int32 not null\nc: float64 not null\n"},
		{name: "inspect", args: []string{"inspect", root + "/parquet-testing/data/int32_decimal.parquet"},
			contains: "value: INT32 DECIMAL(4,2), 24 values"},
		{name: "inspect stats decoded", args: []string{"inspect", root + "/parquet-testing/data/int32_decimal.parquet"},
			contains: "stats: min 1.00, max 24.00, nulls 0"},
		{name: "inspect created_by", args: []string{"inspect", root + "/hyparquet/uuid.parquet"},
			contains: "created_by: hyparquet\n"},
		{name: "inspect shows the PARQUET-816 workaround", args: []string{"inspect", root + "/parquet-testing/data/nation.dict-malformed.parquet"},
			contains: "workaround: PARQUET-816: parquet-mr before 1.2.9"},
		{name: "inspect shows a refused offset index", args: []string{"inspect", "../../internal/scan/testdata/quirks/lying_offset_index.parquet"},
			contains: `workaround: row group 0 column "a": offset index does not tile its chunk`},
		{name: "inspect shows skipped empty groups", args: []string{"inspect", "../../internal/scan/testdata/quirks/empty_group.parquet"},
			contains: `workaround: empty group "s.z"`},
		{name: "inspect without workarounds", args: []string{"inspect", root + "/parquet-testing/data/binary_truncated_min_max.parquet"},
			contains: "workarounds: none\n"},
		{name: "explain help", args: []string{"explain", "-h"}, contains: "usage: pqscan explain"},
		{name: "explain without SRC", args: []string{"explain", "--where", "id = 4"}, code: 2, stderrHas: "explain needs exactly one SRC"},
		{name: "explain takes no cat flags", args: []string{"explain", plain, "--limit", "1"}, code: 2, stderrHas: "flag provided but not defined: -limit"},
		{name: "optimize help", args: []string{"optimize", "--help"}, contains: "usage: pqscan optimize"},
		{name: "optimize unknown engine", args: []string{"optimize", plain, t.TempDir() + "/out.parquet", "--engine", "jvm"}, code: 2, stderrHas: "unknown engine"},
		{name: "inspect of encrypted columns under a plaintext footer", args: []string{"inspect", root + "/parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted"},
			code: 1, stderrHas: "encrypted Parquet is not supported", stderrLine: true},
		{name: "cat help", args: []string{"cat", "-h"}, contains: "usage:"},
		{name: "encrypted file", args: []string{"cat", root + "/parquet-testing/data/uniform_encryption.parquet.encrypted"},
			code: 1, stderrHas: "encrypted Parquet is not supported", stderrLine: true},
		{name: "missing file", args: []string{"cat", root + "/nope.parquet"}, code: 1, stderrHas: "no such file", stderrLine: true},
		{name: "not parquet", args: []string{"schema", root + "/README.md"}, code: 1, stderrHas: "not a Parquet file", stderrLine: true},
		{name: "unknown column", args: []string{"cat", plain, "--columns", "nope"}, code: 1, stderrLine: true},
		{name: "unknown command", args: []string{"frobnicate", plain}, code: 2, stderrHas: "unknown command"},
		{name: "no SRC", args: []string{"cat"}, code: 2, stderrHas: "needs a SRC"},
		{name: "two SRCs for explain", args: []string{"explain", plain, plain, "--where", "id = 1"}, code: 2},
		{name: "bad format", args: []string{"cat", plain, "--format", "xml"}, code: 2, stderrHas: "unknown format"},
		{name: "bad flag", args: []string{"cat", plain, "--nope"}, code: 2, stderrHas: "flag provided but not defined"},
		{name: "unknown engine", args: []string{"cat", plain, "--engine", "jvm"}, code: 2, stderrHas: "unknown engine"},
		{name: "wasm engine", args: []string{"cat", plain, "--engine", "wasm", "--limit", "1"}, contains: `"id":4`},
		{name: "help", args: []string{"--help"}, contains: "usage:"},
		{name: "cat CRC 0 (Parquet.jl)", args: []string{"cat", "../../internal/scan/testdata/quirks/crc_zero_parquetjl.parquet", "--limit", "2"},
			stdout: "{\"int32\":10,\"s\":\"a\"}\n{\"int32\":20,\"s\":null}\n"},
		{name: "cat wrong CRC", args: []string{"cat", corrupt}, code: 1, stderrHas: "page checksum mismatch", stderrLine: true},
		{name: "cat wrong CRC --no-verify-crc", args: []string{"cat", corrupt, "--no-verify-crc", "--limit", "1", "--columns", "a"},
			stdout: "{\"a\":50462976}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			if tc.stdout != "" || tc.contains == "" {
				if tc.code == 0 {
					require.Equal(t, tc.stdout, stdout)
				}
			}
			if tc.contains != "" {
				require.True(t, strings.Contains(stdout, tc.contains), "stdout lacks", tc.contains, stdout)
			}
			if tc.stderrHas != "" {
				require.True(t, strings.Contains(stderr, tc.stderrHas), "stderr lacks", tc.stderrHas, stderr)
			}
			if tc.stderrLine {
				require.True(t, strings.HasPrefix(stderr, "pqscan: ") && strings.Count(stderr, "\n") == 1, "want one line", stderr)
			}
		})
	}
}

func Test_runArrowFormat(t *testing.T) {
	plain := testcorpus.Dir(t) + "/parquet-testing/data/alltypes_plain.parquet"
	code, stdout, stderr := runCLI(t, "cat", plain, "--format", "arrow", "--batch-rows", "3")
	require.Equal(t, 0, code, stderr)
	r, err := ipc.NewReader(strings.NewReader(stdout))
	require.NoError(t, err)
	defer r.Release()
	rows, batches := int64(0), 0
	for r.Next() {
		rows += r.RecordBatch().NumRows()
		batches++
	}
	require.NoError(t, r.Err())
	require.Equal(t, int64(8), rows)
	require.Equal(t, 3, batches) // 3 + 3 + 2 rows: one IPC stream, several batches
	require.Equal(t, 11, r.Schema().NumFields())
}

// Test_runHTTP serves a corpus file from 127.0.0.1 with http.ServeContent (which implements
// Range) and checks that the URL gives the same rows as the path, through range requests.
func Test_runHTTP(t *testing.T) {
	rel := "hyparquet/rowgroups.parquet"
	data := testcorpus.Read(t, rel)
	var requests, ranged atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Range") != "" {
			ranged.Add(1)
		}
		http.ServeContent(w, r, "f.parquet", time.Unix(0, 0), bytes.NewReader(data))
	}))
	defer srv.Close()

	codeLocal, wantOut, _ := runCLI(t, "cat", testcorpus.Dir(t)+"/"+rel, "--limit", "4")
	require.Equal(t, 0, codeLocal)
	code, out, stderr := runCLI(t, "cat", srv.URL+"/f.parquet", "--limit", "4", "--verbose")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, wantOut, out)
	require.True(t, requests.Load() > 0 && requests.Load() == ranged.Load(), "every request is a range request", requests.Load(), ranged.Load())
	require.True(t, strings.Contains(stderr, "requests"), stderr)
	require.True(t, strings.Contains(stderr, "pqscan: reading 1 / 2 row groups\n"), stderr)

	code, _, stderr = runCLI(t, "schema", srv.URL+"/missing.parquet")
	require.Equal(t, 0, code) // ServeContent ignores the path: same file
	srv404 := httptest.NewServer(http.NotFoundHandler())
	defer srv404.Close()
	code, _, stderr = runCLI(t, "schema", srv404.URL+"/x.parquet")
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stderr, "pqscan: ") && strings.Count(stderr, "\n") == 1, stderr)
}
