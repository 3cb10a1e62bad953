package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/pqout"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// runWith runs the CLI with the given streams (a tty around a buffer plays a terminal).
func runWith(t *testing.T, stdout, stderr io.Writer, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return run(ctx, args, stdout, stderr)
}

// stepClock is a fake clock that moves by step at every reading.
type stepClock struct {
	t    time.Time
	step time.Duration
}

func (c *stepClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func fakeTTY(w io.Writer) tty {
	c := &stepClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second} // every progress update is drawn
	return tty{Writer: w, now: c.now}
}

// files lists a directory (to see that no temporary file is left).
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// Test_catParquet: cat --format parquet -o FILE writes the query's result, which reads back
// (in pqscan) as the same rows as the query printed as JSON lines, for a file and for
// datasets (a Delta table, a glob); only FILE is left in its directory. The first three cases
// are the queries of internal/conformance's Test_parquetOutputOracles (which reads pqout's output
// back in pqscan, arrow-go and DuckDB), and the CLI's file is byte for byte what pqout writes
// for that scan through the Go API.
func Test_catParquet(t *testing.T) {
	root := testcorpus.Dir(t)
	impala := root + "/parquet-testing/data/nullable.impala.parquet"
	dict := root + "/hyparquet/dictionary_offset_indexed.parquet"
	delta := root + "/delta/dat/basic_partitioned/delta/"
	tests := []struct {
		name  string
		query []string
		so    *pqscan.ScanOptions // the same query through the Go API, when set
	}{
		{name: "file: nested, nulls, filter, projection", query: []string{impala,
			"--where", "id >= 2 AND id != 5", "--columns", "id,int_array,int_array_Array,int_map,int_Map_Array,nested_struct"},
			so: &pqscan.ScanOptions{Where: "id >= 2 AND id != 5", Columns: []string{"id", "int_array", "int_array_Array", "int_map", "int_Map_Array", "nested_struct"}}},
		{name: "dictionary arrays", query: []string{dict,
			"--where", "id > 150 OR country = 'Japan'", "--columns", "country,id", "--dictionary-arrays", "--batch-rows", "7"},
			so: &pqscan.ScanOptions{Where: "id > 150 OR country = 'Japan'", Columns: []string{"country", "id"}, DictionaryArrays: true, BatchRows: 7}},
		{name: "delta table", query: []string{delta, "--where", "number >= 2", "--columns", "number,letter"},
			so: &pqscan.ScanOptions{Where: "number >= 2", Columns: []string{"number", "letter"}}},
		{name: "glob", query: []string{delta + "letter=*/*.parquet", "--columns", "number,letter"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, want, stderr := runCLI(t, append([]string{"cat"}, tc.query...)...)
			require.Equal(t, 0, code, stderr)
			require.True(t, strings.Count(want, "\n") > 0, want)
			dir := t.TempDir()
			out := filepath.Join(dir, "out.parquet")
			code, stdout, stderr := runCLI(t, append([]string{"cat", "--format", "parquet", "-o", out}, tc.query...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, "", stdout)
			require.Equal(t, []string{"out.parquet"}, files(t, dir))
			code, got, stderr := runCLI(t, "cat", out)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, want, got)
			if tc.so != nil {
				b, err := os.ReadFile(out)
				require.NoError(t, err)
				require.True(t, bytes.Equal(pqoutBytes(t, tc.query[0], *tc.so), b), "the CLI's file differs from pqout's")
			}
		})
	}
}

// pqoutBytes scans src (a file, or a dataset folder ending in /) through the Go API and
// writes the result with pqout.
func pqoutBytes(t *testing.T, src string, so pqscan.ScanOptions) []byte {
	t.Helper()
	ctx := context.Background()
	var (
		r   *pqscan.Reader
		err error
	)
	if strings.HasSuffix(src, "/") {
		ds, err := pqscan.OpenDataset(ctx, []string{src}, pqscan.Options{})
		require.NoError(t, err)
		defer ds.Close()
		r, err = ds.Scan(ctx, so)
		require.NoError(t, err)
	} else {
		f, err := pqscan.Open(ctx, src, pqscan.Options{})
		require.NoError(t, err)
		defer f.Close()
		r, err = f.Scan(ctx, so)
		require.NoError(t, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := pqout.New(&buf, r.Schema(), pqout.Options{})
	require.NoError(t, err)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.NoError(t, w.Write(rec))
		rec.Release()
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Test_catParquetErrors: a scan that fails midway leaves no file (and an existing FILE as it
// was); parquet to a terminal's stdout is refused before anything is read.
func Test_catParquetErrors(t *testing.T) {
	data := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages.parquet")
	// The tail (footer) is served; every data range after it fails with 403 (not retried).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rg := r.Header.Get("Range"); rg != "" && !strings.Contains(rg, "bytes=-") {
			var from int
			if _, err := fmt.Sscanf(rg, "bytes=%d-", &from); err == nil && from < len(data)-64<<10 {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
		}
		http.ServeContent(w, r, "f.parquet", time.Unix(0, 0), bytes.NewReader(data))
	}))
	defer srv.Close()

	code, _, stderr := runCLI(t, "schema", srv.URL+"/f.parquet")
	require.Equal(t, 0, code, stderr) // the footer is served: the failure comes mid-scan
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	code, _, stderr = runCLI(t, "cat", srv.URL+"/f.parquet", "--format", "parquet", "-o", out)
	require.Equal(t, 1, code, stderr)
	require.True(t, strings.Contains(stderr, "403"), stderr)
	require.Equal(t, []string(nil), files(t, dir))

	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	code, _, _ = runCLI(t, "cat", srv.URL+"/f.parquet", "--format", "parquet", "-o", out)
	require.Equal(t, 1, code)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "old", string(b))
	require.Equal(t, []string{"out.parquet"}, files(t, dir))

	code, _, stderr = runCLI(t, "cat", srv.URL+"/f.parquet", "--format", "parquet", "-o", filepath.Join(dir, "no/such/dir/x.parquet"))
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stderr, "pqscan: ") && strings.Count(stderr, "\n") == 1, stderr)

	var stdout, errb bytes.Buffer
	code = runWith(t, fakeTTY(&stdout), &errb, "cat", srv.URL+"/f.parquet", "--format", "parquet")
	require.Equal(t, 2, code)
	require.True(t, strings.Contains(errb.String(), "--format parquet writes a binary file: give -o FILE"), errb.String())
	require.Equal(t, "", stdout.String())

	code, _, stderr = runCLI(t, "cat", srv.URL+"/f.parquet", "--format", "xml")
	require.Equal(t, 2, code)
	require.True(t, strings.Contains(stderr, `unknown format "xml"`), stderr)
}
