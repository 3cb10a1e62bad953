package wazerohost_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// A *Host is an engine of the Go API, and its sessions speak the one protocol: no adapter.
var (
	_ pqscan.Engine  = (*wazerohost.Host)(nil)
	_ pqscan.Session = (*wazerohost.Session)(nil)
)

// Test_pqscanEngine runs the Go API over the wasm engine and over the native one: same schema,
// same rows.
func Test_pqscanEngine(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	opts := pqscan.ScanOptions{Columns: []string{"id", "string_col"}, Where: "id >= 100 AND id < 130"}

	read := func(engine pqscan.Engine) (schema string, rows []string) {
		f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Engine: engine})
		require.NoError(t, err)
		defer f.Close()
		r, err := f.Scan(ctx, opts)
		require.NoError(t, err)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			for i := 0; i < int(rec.NumRows()); i++ {
				rows = append(rows, rec.Column(0).(*array.Int32).ValueStr(i)+"/"+rec.Column(1).ValueStr(i))
			}
			rec.Release()
		}
		return f.Schema().String(), rows
	}
	wantSchema, want := read(pqscan.Native{})
	gotSchema, got := read(h)
	require.Equal(t, 30, len(want))
	require.Equal(t, wantSchema, gotSchema)
	require.Equal(t, want, got)
}

// Test_metadataOverWasm: the module's Metadata step (pq_metadata JSON + pq_schema) gives the Go
// API the footer summary the native engine gives, and a File's scan over the module fetches
// nothing the open already fetched (the engine-side cache itself: internal/scan Test_footerCache).
func Test_metadataOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{PoolSize: 1})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	open := func(e pqscan.Engine) *pqscan.File {
		f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Engine: e})
		require.NoError(t, err)
		return f
	}
	nf, wf := open(pqscan.Native{}), open(h)
	defer nf.Close()
	defer wf.Close()
	want, got := *nf.Metadata(), *wf.Metadata()
	require.True(t, scan.Thrift(&got) == nil, "a Thrift footer crossed the wasm boundary")
	want.SchemaIPC, got.SchemaIPC = nil, nil
	require.Equal(t, scan.Thrift(nf.Metadata()).NumRows, want.NumRows)
	require.Equal(t, want.NumRows, got.NumRows)
	require.Equal(t, want.CreatedBy, got.CreatedBy)
	require.Equal(t, want.KeyValue, got.KeyValue)
	require.Equal(t, want.RowGroups, got.RowGroups)
	require.Equal(t, nf.Schema().String(), wf.Schema().String())

	before := wf.Source().Stats().Requests
	r, err := wf.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id"}, Limit: 5})
	require.NoError(t, err)
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		rec.Release()
	}
	rep := r.Report()
	tail := int64(64 << 10)
	require.True(t, rep.BytesRequested < int64(len(file))-tail, "the scan asked for", rep.BytesRequested, "bytes")
	require.True(t, wf.Source().Stats().Requests-before == int64(rep.Requests), "requests beyond the engine's")
}

// Test_datasetOverWasm: a *Host is also a table engine: several files read as one table inside
// the module (pq_open_table, NeedData, pq_push_file) give the native engine's rows, reports and
// errors.
func Test_datasetOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	var _ pqscan.TableEngine = h
	root := t.TempDir()
	src := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	for _, d := range []string{"k=1", "k=2", "k=3"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, d, "f.parquet"), src, 0o644))
	}
	read := func(e pqscan.Engine, so pqscan.ScanOptions) ([]string, pqscan.Report) {
		ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{Engine: e})
		require.NoError(t, err)
		defer ds.Close()
		r, err := ds.Scan(ctx, so)
		require.NoError(t, err)
		defer r.Close()
		var rows []string
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return rows, r.Report()
			}
			require.NoError(t, err)
			for i := 0; i < int(rec.NumRows()); i++ {
				rows = append(rows, rec.Column(0).ValueStr(i)+"/"+rec.Column(1).ValueStr(i)+"/"+rec.Column(2).ValueStr(i))
			}
			rec.Release()
		}
	}
	for _, so := range []pqscan.ScanOptions{
		{Columns: []string{"id", "string_col", "k"}, Where: "k >= 2 AND id < 40"},
		{Columns: []string{"id", "bool_col", "k"}, Limit: 8000},
	} {
		want, wr := read(pqscan.Native{}, so)
		got, gr := read(h, so)
		require.True(t, len(want) > 0, "no rows")
		require.Equal(t, want, got)
		require.Equal(t, wr.FilesRead, gr.FilesRead)
		require.Equal(t, wr.BytesRequested, gr.BytesRequested)
		require.Equal(t, wr.RoundTrips, gr.RoundTrips)
	}
}
