package optimize

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_AdviseDataset: compaction is advised when footers and indexes pass 10 % of the data,
// or most files are under 16 MiB of data; never for one file.
func Test_AdviseDataset(t *testing.T) {
	big := FileLayout{Size: 200 << 20, DataBytes: 199 << 20}
	tiny := FileLayout{Size: 100_000, DataBytes: 80_000}
	kinds := func(fs ...FileLayout) []string {
		var k []string
		for _, a := range AdviseDataset(fs) {
			k = append(k, a.Kind)
		}
		return k
	}
	require.Equal(t, []string(nil), kinds(tiny))
	require.Equal(t, []string(nil), kinds(big, big))
	require.Equal(t, []string{"compact-footers", "compact-small-files"}, kinds(tiny, tiny, tiny))
	require.Equal(t, []string{"compact-small-files"}, kinds(FileLayout{Size: 1 << 20, DataBytes: 1<<20 - 1000}, FileLayout{Size: 1 << 20, DataBytes: 1<<20 - 1000}))
	require.Equal(t, []string{"compact-footers"}, kinds(big, FileLayout{Size: 100 << 20, DataBytes: 20 << 20}, FileLayout{Size: 100 << 20, DataBytes: 20 << 20}))
}
