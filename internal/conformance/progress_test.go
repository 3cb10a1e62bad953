package conformance

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_readerProgress: OnProgress sees the bytes fetched grow to the bytes planned, never
// more, and the rows returned, for a file whose data lies outside the tail and for a Delta
// table (a table session's NeedData rounds).
type scanSource interface {
	Scan(context.Context, pqscan.ScanOptions) (*pqscan.Reader, error)
}

func Test_readerProgress(t *testing.T) {
	root := testcorpus.Dir(t)
	tests := []struct {
		name string
		open func(ctx context.Context) (scanSource, error)
	}{
		{name: "file", open: func(ctx context.Context) (scanSource, error) {
			return pqscan.Open(ctx, filepath.Join(root, "parquet-testing/data/alltypes_tiny_pages.parquet"), pqscan.Options{})
		}},
		{name: "delta table", open: func(ctx context.Context) (scanSource, error) {
			return pqscan.OpenDataset(ctx, []string{filepath.Join(root, "delta/dat/basic_partitioned/delta") + "/"}, pqscan.Options{})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f, err := tc.open(ctx)
			require.NoError(t, err)
			r, err := f.Scan(ctx, pqscan.ScanOptions{BatchRows: 1000})
			require.NoError(t, err)
			defer r.Close()
			var seen []pqscan.Progress
			r.OnProgress(func(p pqscan.Progress) { seen = append(seen, p) })
			var rows int64
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				rows += rec.NumRows()
				rec.Release()
			}
			require.True(t, len(seen) > 1, seen)
			for i, p := range seen {
				require.True(t, p.BytesFetched <= p.BytesPlanned, p)
				if i > 0 {
					prev := seen[i-1]
					require.True(t, p.BytesFetched >= prev.BytesFetched && p.Rows >= prev.Rows && p.BytesPlanned >= prev.BytesPlanned, seen[i-1:i+1])
				}
			}
			last := seen[len(seen)-1]
			require.Equal(t, rows, last.Rows)
			require.True(t, rows > 0 && last.BytesFetched > 0, last)
			require.Equal(t, last.BytesPlanned, last.BytesFetched)
		})
	}
}
