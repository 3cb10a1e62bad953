package conformance

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/splitscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// A scan through the wasm module is split too: planned natively, its units run on several of
// the Host's instances at once, and it returns what one module session returns.
func TestSplitWazero(t *testing.T) {
	old := splitscan.UnitMinBytes
	splitscan.UnitMinBytes = 1
	t.Cleanup(func() { splitscan.UnitMinBytes = old })
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	for _, p := range []string{"parquet-testing/data/alltypes_tiny_pages_plain.parquet", "hyparquet/rowgroups.parquet"} {
		data := testcorpus.Read(t, p)
		so := pqscan.ScanOptions{RowIndex: "__ri", BatchRows: 500}
		var outs [2][][]byte
		var rep pqscan.Report
		for i, threads := range []int{1, 3} {
			f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), pqscan.Options{Engine: h, Threads: threads})
			require.NoError(t, err)
			r, err := f.Scan(ctx, so)
			require.NoError(t, err)
			for {
				b, err := r.NextIPC()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				outs[i] = append(outs[i], bytes.Clone(b))
			}
			rep = r.Report()
			r.Close()
			f.Close()
		}
		require.True(t, rep.Units > 1 && rep.Threads > 1, p, rep.Units, rep.Threads)
		if rep.Units == rep.RowGroupsAfterStats { // no row group cut: the same batches
			require.Equal(t, len(outs[0]), len(outs[1]), p)
			for i := range outs[0] {
				require.True(t, bytes.Equal(outs[0][i], outs[1][i]), p, i)
			}
		}
		t.Logf("%s: %d units on %d threads, %d and %d batches", p, rep.Units, rep.Threads, len(outs[0]), len(outs[1]))
		require.True(t, ipcLines(t, outs[0]) == ipcLines(t, outs[1]), p, "rows differ")
	}
}

// ipcLines is the rows of IPC batches, one line each.
func ipcLines(t *testing.T, bs [][]byte) string {
	var out strings.Builder
	for _, b := range bs {
		rd, err := ipc.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		for rd.Next() {
			rec := rd.RecordBatch()
			for i := range int(rec.NumRows()) {
				for j := range int(rec.NumCols()) {
					out.WriteString(rec.Column(j).ValueStr(i) + "|")
				}
				out.WriteByte('\n')
			}
		}
		rd.Release()
	}
	return out.String()
}
