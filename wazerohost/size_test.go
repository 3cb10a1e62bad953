package wazerohost

import (
	"bytes"
	"os"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/pqscan/pqscan/internal/require"
)

// maxBrotliBytes is the module's size budget: what a browser downloads (DESIGN.md §2; peers ship
// 1.2 MB for parquet-wasm). The size is deterministic for a toolchain and the code (the module
// carries no VCS stamp, whose commit would shift every data address and move brotli's output by
// kilobytes), so a failure here means a change added code: `make size` shows where.
const maxBrotliBytes = 1_500_000

// maxLeanBrotliBytes is the lean module's budget (-tags pqscan_lean, what a page loads first
// for single files): its measured size and a small margin, so that what it links is watched.
const maxLeanBrotliBytes = 1_000_000

func Test_moduleSize(t *testing.T) {
	if testing.Short() {
		t.Skip("brotli -q 11 of the module takes seconds")
	}
	checkBrotliSize(t, "module", moduleWasm, maxBrotliBytes)
}

func Test_leanModuleSize(t *testing.T) {
	if testing.Short() {
		t.Skip("brotli -q 11 of the module takes seconds")
	}
	checkBrotliSize(t, "lean module", leanModule(t), maxLeanBrotliBytes)
}

// leanModule reads the lean module `make wasm` builds beside the embedded one.
func leanModule(t *testing.T) []byte {
	b, err := os.ReadFile("pqscan-lean.wasm")
	require.NoError(t, err, "build it with `make wasm`")
	return b
}

func checkBrotliSize(t *testing.T, name string, wasm []byte, budget int) {
	// `make wasm` builds with -buildvcs=false: the same code is the same bytes on every commit.
	require.True(t, !bytes.Contains(wasm, []byte("vcs.revision")), name+" carries a VCS stamp (build it with `make wasm`)")
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 11, LGWin: 24}) // = brotli -q 11
	_, err := w.Write(wasm)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	t.Logf("%s: %d B raw, %d B brotli -q 11 (budget %d)", name, len(wasm), buf.Len(), budget)
	require.True(t, buf.Len() <= budget, name+" too large", buf.Len())
}
