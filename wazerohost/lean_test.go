package wazerohost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_leanMatchesFull scans every Parquet file of the corpus through the lean module (the one
// a page loads first) and the full one: the IPC bytes, the report and the error must be
// identical, except for files with a codec the lean module leaves out, which it must fail with
// codec.ErrNotInModule before any row (a host then reruns them in the full module).
func Test_leanMatchesFull(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the whole corpus through two modules")
	}
	full := newHost(t, Config{})
	lean := newHost(t, Config{Module: leanModule(t)})
	var same, fallback int
	for _, f := range inventory(t) {
		file := testcorpus.Read(t, f)
		want, _ := runWasm(t, full, file, scan.Options{})
		got, err := runWasm(t, lean, file, scan.Options{})
		if errors.Is(err, codec.ErrNotInModule) {
			require.True(t, len(got.streams) == 0, f, "the lean module returned rows before failing")
			fallback++
			continue
		}
		if equalResults(t, f, want.comparable(), got.comparable()) {
			same++
		}
	}
	t.Logf("%d files identical, %d left to the full module", same, fallback)
	require.True(t, fallback >= 3, "corpus files with BROTLI pages", fallback)
}

// Test_leanSendsALPToFull: the lean module leaves the ALP decoder out, so a file whose chunks
// list ALP fails there with codec.ErrNotInModule before any row, and the full module reads it.
func Test_leanSendsALPToFull(t *testing.T) {
	file, err := os.ReadFile(filepath.Join("..", "internal", "scan", "testdata", "quirks", "alp_columns.parquet"))
	require.NoError(t, err)
	lean := newHost(t, Config{Module: leanModule(t)})
	got, err := runWasm(t, lean, file, scan.Options{})
	require.True(t, errors.Is(err, codec.ErrNotInModule), err)
	require.Equal(t, 0, len(got.streams))
	full := newHost(t, Config{})
	res, err := runWasm(t, full, file, scan.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(4500), res.report.RowsReturned)
}

// Test_leanHasNoTables: the lean module fails a table open with ErrABI rather than trapping.
func Test_leanHasNoTables(t *testing.T) {
	lean := newHost(t, Config{Module: leanModule(t)})
	_, err := lean.start(context.Background(), map[string]any{}, true)
	require.True(t, errors.Is(err, ErrABI), err)
}

// Test_leanOptionsFallBack: options that only the full module's decoder reads (a null, which
// flatjson does not take) fail in the lean module with codec.ErrNotInModule, and open in the
// full one.
func Test_leanOptionsFallBack(t *testing.T) {
	opts := map[string]any{"limit": nil, "fileSize": 100}
	lean := newHost(t, Config{Module: leanModule(t)})
	_, err := lean.start(context.Background(), opts, false)
	require.True(t, errors.Is(err, codec.ErrNotInModule), err)
	full := newHost(t, Config{})
	s, err := full.start(context.Background(), opts, false)
	require.NoError(t, err)
	s.Close()
}
