package conformance

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// copyIcebergTable copies the corpus table name into a temporary folder and returns it.
func copyIcebergTable(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		require.NoError(t, os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755))
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// Test_icebergDeleteFaults: a delete file that is missing or does not read as its format
// fails the open, naming the delete file (and, for a deletion vector, its data file).
func Test_icebergDeleteFaults(t *testing.T) {
	const (
		puffin = "data/dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin"
		// The data file of the vector at bytes 48..100 of puffin: its last position (7, at
		// byte 94) ends an array container, and the blob's CRC-32 is at byte 96.
		dvData  = "20260504_111440_00009_8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet"
		posFile = "data/00000-26-3221b69e-b966-4966-b438-81696899d868-00001-deletes.parquet"
		eqFile  = "data/bunnies-eq-delete-new-zealand.parquet"
	)
	edit := func(f func(b []byte)) func(root string) error {
		return func(root string) error {
			p := filepath.Join(root, puffin)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f(b)
			return os.WriteFile(p, b, 0o644)
		}
	}
	tests := []struct {
		name, table string
		change      func(root string) error
		want        []string
	}{
		{name: "position delete file missing", table: "lithium__refdeletes3",
			change: func(root string) error { return os.Remove(filepath.Join(root, posFile)) }, want: []string{posFile}},
		{name: "equality delete file missing", table: "icebird__java_bunnies",
			change: func(root string) error { return os.Remove(filepath.Join(root, eqFile)) }, want: []string{eqFile}},
		{name: "Puffin file missing", table: "lithium__deletion_vectors",
			change: func(root string) error { return os.Remove(filepath.Join(root, puffin)) }, want: []string{puffin}},
		{name: "deletion vector with a bad checksum", table: "lithium__deletion_vectors",
			change: edit(func(b []byte) { b[94] = 5 }), want: []string{puffin, dvData, "checksum"}},
		{name: "deletion vector past the file's rows", table: "lithium__deletion_vectors",
			change: edit(func(b []byte) {
				b[94] = 9
				binary.BigEndian.PutUint32(b[96:], crc32.ChecksumIEEE(b[52:96]))
			}), want: []string{puffin, dvData, "limit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := copyIcebergTable(t, tc.table)
			require.NoError(t, countTable(root))
			require.NoError(t, tc.change(root))
			err := countTable(root)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// countTable opens the table at root and counts its rows: the error of either (the open reads
// the metadata and manifest list, the scan the manifests, deletes and data files).
func countTable(root string) error {
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	if err != nil {
		return err
	}
	defer ds.Close()
	_, _, err = ds.Count(ctx, pqscan.ScanOptions{})
	return err
}
