package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// parquetJL is a file shaped as Parquet.jl 0.6 writes them: a page header crc of 0 on every
// page (four pages, five rows; internal/scan/testdata/quirks/README.md).
func parquetJL(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "scan", "testdata", "quirks", "crc_zero_parquetjl.parquet"))
	require.NoError(t, err)
	return b
}

// Test_pageCRCs: through the Go API, a file whose CRCs are 0 reads and Report counts its pages
// as unverified; a wrong CRC is ErrCorrupt unless ScanOptions.NoVerifyCRC, and a dataset's
// report sums its files' counts.
func Test_pageCRCs(t *testing.T) {
	corrupt := testcorpus.Read(t, "parquet-testing/data/datapage_v1-corrupt-checksum.parquet")
	tests := []struct {
		name       string
		file       []byte
		so         pqscan.ScanOptions
		rows       int64
		unverified int
		err        error
	}{
		{name: "Parquet.jl's CRC 0", file: parquetJL(t), rows: 5, unverified: 4},
		{name: "wrong CRCs", file: corrupt, err: pqscan.ErrCorrupt},
		{name: "wrong CRCs, verification off", file: corrupt, so: pqscan.ScanOptions{NoVerifyCRC: true}, rows: 5120, unverified: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(tc.file), int64(len(tc.file)), pqscan.Options{})
			require.NoError(t, err)
			defer f.Close()
			r, err := f.Scan(ctx, tc.so)
			require.NoError(t, err)
			defer r.Close()
			res, err := collect(r)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorContains(t, err, "page checksum mismatch: column a")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.rows, res.rows)
			require.Equal(t, tc.unverified, r.Report().PagesCRCUnverified)
		})
	}

	t.Run("dataset", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		dir := t.TempDir()
		for _, name := range []string{"a.parquet", "b.parquet"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), parquetJL(t), 0o644))
		}
		ds, err := pqscan.OpenDataset(ctx, []string{dir + "/"}, pqscan.Options{})
		require.NoError(t, err)
		defer ds.Close()
		r, err := ds.Scan(ctx, pqscan.ScanOptions{})
		require.NoError(t, err)
		defer r.Close()
		res, err := collect(r)
		require.NoError(t, err)
		require.Equal(t, int64(10), res.rows)
		require.Equal(t, 8, r.Report().PagesCRCUnverified)
	})
}
