package splitscan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// Test_splittable: a scan splits only when its answer is its units' answers in order and
// each unit's slice is known before it runs.
func Test_splittable(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    scan.Options
		want bool
	}{
		{name: "all rows", o: scan.Options{}, want: true},
		{name: "where", o: scan.Options{Where: "a > 1"}, want: true},
		{name: "limit without where", o: scan.Options{Limit: 10, Offset: 5}, want: true},
		{name: "where and limit", o: scan.Options{Where: "a > 1", Limit: 10}},
		{name: "where and offset", o: scan.Options{Where: "a > 1", Offset: 1}},
		{name: "count", o: scan.Options{Count: true}},
		{name: "min/max", o: scan.Options{MinMax: "a"}},
		{name: "order by", o: scan.Options{OrderBy: "a"}},
		{name: "explain", o: scan.Options{Explain: true}},
	} {
		require.Equal(t, tc.want, splittable(tc.o), tc.name)
	}
}

// Test_joinWhere: runtime filters accepted before the units start are ANDed into the WHERE.
func Test_joinWhere(t *testing.T) {
	require.Equal(t, "", joinWhere("", nil))
	require.Equal(t, "a > 1", joinWhere("a > 1", nil))
	require.Equal(t, "b = 2", joinWhere("", []string{"b = 2"}))
	require.Equal(t, "((a > 1) AND (b = 2)) AND (c < 3)", joinWhere("a > 1", []string{"b = 2", "c < 3"}))
}

// Test_unitTarget: two units per thread, but small enough that the units running and a unit
// ahead's output fit the memory cap; never under UnitMinBytes.
func Test_unitTarget(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		planned int64
		threads int
		memCap  int64
		want    int64
	}{
		{240 * mib, 2, 0, 32 * mib},          // the default cap (256 MiB): a quarter of its share per thread
		{240 * mib, 2, 1024 * mib, 60 * mib}, // a large cap: two units per thread
		{240 * mib, 8, 0, 8 * mib},           // many threads: at least UnitMinBytes
		{20 * mib, 2, 0, 8 * mib},
	} {
		require.Equal(t, c.want, unitTarget(c.planned, c.threads, c.memCap), c)
	}
}
