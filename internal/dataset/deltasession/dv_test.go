package deltasession_test

import (
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_deletionVectorRound: after the log, the session asks for the table's one stored
// vector as one range (version byte, size, 36 bytes of vector, checksum) in one round, and
// ends with the file's deleted rows and its live row count.
func Test_deletionVectorRound(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "table-with-dv-small")
	var rounds [][]scan.FileRange
	var names []string
	snap, _, err := driveWith(t, root, deltasession.Options{CanList: true}, false, func(reqs []scan.FileRange, files []string) bool {
		rounds, names = append(rounds, reqs), files
		return true
	})
	require.NoError(t, err)
	require.Equal(t, [][]scan.FileRange{{{File: 0, Range: scan.Range{Off: 0, Len: 45}}}}, rounds)
	require.Equal(t, []string{"deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"}, names)
	require.Equal(t, []int64{0, 1, 9, 10}, snap.Table.Files[0].Deleted)
	require.Equal(t, int64(8), snap.Table.Files[0].Rows)
}

// Test_deletionVectorUnanswered: a host that does not deliver the vector's bytes (a file
// shorter than the log says) gets an error naming the vector and the data file, no snapshot.
func Test_deletionVectorUnanswered(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "table-with-dv-small")
	snap, _, err := driveWith(t, root, deltasession.Options{CanList: true}, false, func([]scan.FileRange, []string) bool { return false })
	require.ErrorIs(t, err, delta.ErrMissingFile)
	require.ErrorContains(t, err, "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet: the file ends before byte 45")
	require.True(t, snap == nil)
}

// Test_deletionVectorsPastTheMemoryCap: vectors larger in all than the memory cap are refused
// before any of their bytes is requested.
func Test_deletionVectorsPastTheMemoryCap(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "table-with-dv-small")
	asked := false
	_, _, err := driveWith(t, root, deltasession.Options{CanList: true, MemoryCap: 44}, false, func([]scan.FileRange, []string) bool {
		asked = true
		return true
	})
	require.ErrorIs(t, err, scan.ErrMemoryCap)
	require.True(t, !asked)
}
