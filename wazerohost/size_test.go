package wazerohost

import (
	"bytes"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/pqscan/pqscan/internal/require"
)

// maxBrotliBytes is the module's size budget: what a browser downloads (DESIGN.md §2; peers ship
// 1.2 MB for parquet-wasm). The size is deterministic for a toolchain, so a failure here means a
// change pulled in a dependency: `make size` shows which.
const maxBrotliBytes = 1_500_000

func Test_moduleSize(t *testing.T) {
	if testing.Short() {
		t.Skip("brotli -q 11 of the module takes seconds")
	}
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 11, LGWin: 24}) // = brotli -q 11
	_, err := w.Write(moduleWasm)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	t.Logf("module: %d B raw, %d B brotli -q 11 (budget %d)", len(moduleWasm), buf.Len(), maxBrotliBytes)
	require.True(t, buf.Len() <= maxBrotliBytes, "module too large", buf.Len())
}
