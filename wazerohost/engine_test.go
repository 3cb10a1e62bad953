package wazerohost_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// *wazerohost.Session has the protocol of package pqscan's Session, so the Go API can run its
// scans in the wasm module through a three-line adapter (kept out of wazerohost, so that
// package pqscan may one day import wazerohost without a cycle).
var _ pqscan.Session = (*wazerohost.Session)(nil)

type wasmEngine struct{ h *wazerohost.Host }

func (e wasmEngine) Start(ctx context.Context, o scan.Options) (pqscan.Session, error) {
	s, err := e.h.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

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
	gotSchema, got := read(wasmEngine{h})
	require.Equal(t, 30, len(want))
	require.Equal(t, wantSchema, gotSchema)
	require.Equal(t, want, got)
}
