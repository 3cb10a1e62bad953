package icebergsession_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_session_pathMap: with the tables' data/ prefix mapped onto the same folder by a
// file: URL, every data, delete and deletion vector file is read through the mapping, and the
// snapshot is the unmapped one's: each data file with the same rows deleted, since the delete
// files name their targets by the paths as written, which the mapping does not change.
func Test_session_pathMap(t *testing.T) {
	for name, prefix := range map[string]string{
		"icebird__java_bunnies":     "s3a://hyperparam-iceberg/java/bunnies/data", // position and equality deletes
		"lithium__deletion_vectors": "s3a://warehouse/deletion_vectors/data",      // deletion vectors
	} {
		root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", name)
		want, _, err := drive(t, root, icebergsession.Options{CanList: true})
		require.NoError(t, err, name)
		base := "file://" + filepath.ToSlash(root) + "/data"
		got, _, err := drive(t, root, icebergsession.Options{CanList: true, PathMap: map[string]string{prefix: base}})
		require.NoError(t, err, name)
		require.Equal(t, len(want.Table.Files), len(got.Table.Files), name)
		deleted := 0
		for i, f := range got.Table.Files {
			w := want.Table.Files[i]
			require.True(t, got.Absolute[i], name, f.Path)
			require.Equal(t, base+"/"+strings.TrimPrefix(w.Path, "data/"), f.Path, name)
			require.Equal(t, w.Rows, f.Rows, name, f.Path)
			require.Equal(t, w.Deleted, f.Deleted, name, f.Path)
			deleted += len(f.Deleted)
		}
		require.True(t, deleted > 0, name, "no rows deleted: the test would not see a target mismatch")
	}
	// A base the host did not resolve to a URL is refused before anything is read.
	_, err := icebergsession.New(icebergsession.Options{PathMap: map[string]string{"s3://b/t": "./relative"}})
	require.ErrorIs(t, err, icebergsession.ErrOptions)
}
