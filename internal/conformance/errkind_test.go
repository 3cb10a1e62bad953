package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// kindSentinels are the errors whose errors.Is answer must not depend on the engine.
var kindSentinels = []error{
	pqscan.ErrNotParquet, pqscan.ErrEncrypted, pqscan.ErrCorrupt, pqscan.ErrMemoryCap,
	pqscan.ErrFileChanged, pqscan.ErrSchemaMismatch, pqscan.ErrOutOfScope, pqscan.ErrUnsupportedFeature,
	delta.ErrMalformed, delta.ErrVersionNotFound, delta.ErrVersionGap, delta.ErrMissingFile,
	iceberg.ErrMalformed, iceberg.ErrNotATable, iceberg.ErrSnapshotNotFound, iceberg.ErrMissingFile,
}

// flipByte flips the byte at off of the file at p.
func flipByte(t *testing.T, p string, off int) {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[off] ^= 0xff
	require.NoError(t, os.WriteFile(p, b, 0o644))
}

// Test_errorKindsAcrossEngines: a Delta or Iceberg table that fails (a corrupt page, a truncated
// checkpoint, a version or snapshot that does not exist, a truncated commit or manifest, a
// missing manifest) fails the same way natively and in the module over wazero: errors.Is gives the same answer for every sentinel, the module's error
// kind (pq_error_kind) standing in for the engine's error chain.
func Test_errorKindsAcrossEngines(t *testing.T) {
	basic := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	wasm := wasmHost(t)
	v99, s42 := int64(99), int64(42)
	bunnies := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "icebird__spark_bunnies")
	manifest := func(t *testing.T, dir string) string {
		ents, err := filepath.Glob(filepath.Join(dir, "metadata", "91d5eea0-*-m0.avro")) // written by the current snapshot
		require.NoError(t, err)
		require.Equal(t, 1, len(ents))
		return ents[0]
	}
	for _, tc := range []struct {
		name    string
		src     string
		corrupt func(t *testing.T, dir string)
		opts    pqscan.Options
		want    error
	}{
		{name: "corrupt page", src: basic, want: pqscan.ErrCorrupt, corrupt: func(t *testing.T, dir string) {
			ents, err := filepath.Glob(filepath.Join(dir, "part-00000-3c9f01c2-*.parquet"))
			require.NoError(t, err)
			require.Equal(t, 1, len(ents))
			flipByte(t, ents[0], 99) // inside the first data page: its CRC no longer matches
		}},
		{name: "truncated checkpoint", src: deltaRSDir(t, "simple_table_with_checkpoint"), want: pqscan.ErrNotParquet, corrupt: func(t *testing.T, dir string) {
			// Read by the Delta session with the engine's own reader (in the module, over wazero).
			p := filepath.Join(dir, "_delta_log", "00000000000000000010.checkpoint.parquet")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		}},
		{name: "version not found", src: basic, opts: pqscan.Options{DeltaVersion: &v99}, want: delta.ErrVersionNotFound},
		{name: "truncated commit", src: basic, want: delta.ErrMalformed, corrupt: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "_delta_log", "00000000000000000001.json")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		}},
		{name: "iceberg snapshot not found", src: bunnies, opts: pqscan.Options{IcebergSnapshotID: &s42}, want: iceberg.ErrSnapshotNotFound},
		{name: "iceberg truncated manifest", src: bunnies, want: iceberg.ErrMalformed, corrupt: func(t *testing.T, dir string) {
			p := manifest(t, dir)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		}},
		{name: "iceberg missing manifest", src: bunnies, want: iceberg.ErrMissingFile, corrupt: func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(manifest(t, dir)))
		}},
		{name: "iceberg no metadata file", src: bunnies, want: iceberg.ErrNotATable, corrupt: func(t *testing.T, dir string) {
			ents, err := filepath.Glob(filepath.Join(dir, "metadata", "*"))
			require.NoError(t, err)
			for _, p := range ents {
				require.NoError(t, os.Remove(p))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "metadata", "version-hint.text"), []byte("9"), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTable(t, tc.src, func(string) bool { return false })
			if tc.corrupt != nil {
				tc.corrupt(t, dir)
			}
			read := func(e pqscan.Engine) error {
				o := tc.opts
				o.Engine = e
				ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, o)
				if err != nil {
					return err
				}
				defer ds.Close()
				r, err := ds.Scan(context.Background(), pqscan.ScanOptions{})
				for err == nil {
					_, err = r.Next()
				}
				return err
			}
			native, module := read(nil), read(wasm)
			require.ErrorIs(t, native, tc.want)
			for _, s := range kindSentinels {
				require.Equal(t, errors.Is(native, s), errors.Is(module, s), s, "native:", native, "module:", module)
			}
		})
	}
}
