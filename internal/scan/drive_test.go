package scan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// drive runs a scan over an in-memory file, pushing exactly the requested ranges, and returns
// the IPC streams and the row count (read back with arrow-go).
func drive(t testing.TB, file []byte, opts Options) (streams [][]byte, rows int64, err error) {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	if err != nil {
		return nil, 0, err
	}
	for i := 0; i < 1_000_000; i++ {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			for _, r := range st.Ranges {
				if err := s.Push(r.Off, file[r.Off:r.End()]); err != nil {
					return nil, 0, err
				}
			}
		case Batch:
			streams = append(streams, append([]byte(nil), st.IPC...))
			rd, err := ipc.NewReader(bytes.NewReader(st.IPC))
			if err != nil {
				t.Fatalf("arrow-go cannot read our IPC: %v", err)
			}
			for rd.Next() {
				rows += rd.RecordBatch().NumRows()
			}
			if rd.Err() != nil {
				t.Fatalf("arrow-go cannot read our IPC: %v", rd.Err())
			}
			rd.Release()
		case Done:
			return streams, rows, nil
		case Error:
			return streams, rows, st.Err
		}
	}
	t.Fatal("scan did not finish")
	return
}

// forEachRecord decodes IPC streams with arrow-go and calls fn with every record batch.
func forEachRecord(t testing.TB, streams [][]byte, fn func(rec arrow.RecordBatch)) {
	t.Helper()
	for _, st := range streams {
		rd, err := ipc.NewReader(bytes.NewReader(st))
		require.NoError(t, err)
		for rd.Next() {
			fn(rd.RecordBatch())
		}
		require.NoError(t, rd.Err())
		rd.Release()
	}
}

// Test_corpusDecodes scans every valid corpus file with the engine and reads each batch back
// with arrow-go; values are checked against independent oracles in internal/conformance.
func Test_corpusDecodes(t *testing.T) {
	// Files that must fail, with the reason (parquet-testing README).
	wantErr := map[string]string{
		"parquet-testing/data/datapage_v1-corrupt-checksum.parquet":           "checksum",
		"parquet-testing/data/rle-dict-uncompressed-corrupt-checksum.parquet": "checksum",
		"parquet-testing/data/large_string_map.brotli.parquet":                "memory cap",
	}
	files := testcorpus.Files(t, ".parquet")
	n := 0
	for _, f := range files {
		if strings.Contains(f, "fuzzing") || strings.Contains(f, "bad_data") {
			continue
		}
		n++
		_, _, err := drive(t, testcorpus.Read(t, f), Options{})
		if want, ok := wantErr[f]; ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: want an error containing %q, got %v", f, want, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	require.True(t, n > 100, "corpus files scanned:", n)
}
