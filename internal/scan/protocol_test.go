package scan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// runSession runs s over an in-memory file and returns every step kind, the ranges asked, the
// Metadata step's content and the IPC streams.
type sessionLog struct {
	kinds   []StepKind
	ranges  []Range
	meta    *FileInfo
	streams [][]byte
}

func runSession(t *testing.T, s *Scanner, file []byte) sessionLog {
	t.Helper()
	var l sessionLog
	for i := 0; i < 100_000; i++ {
		st := s.Next()
		l.kinds = append(l.kinds, st.Kind)
		switch st.Kind {
		case NeedRanges:
			l.ranges = append(l.ranges, st.Ranges...)
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
		case Metadata:
			l.meta = st.Meta
		case Batch:
			l.streams = append(l.streams, bytes.Clone(st.IPC))
		case Done:
			return l
		case Error:
			t.Fatalf("scan failed: %v", st.Err)
		}
	}
	t.Fatal("the scan did not finish")
	return l
}

// Test_metadataStep: with Options.Metadata the engine returns one Metadata step right after the
// footer, holding what the footer says, and the scan then gives exactly the batches of a scan
// without it.
func Test_metadataStep(t *testing.T) {
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	opts := Options{FileSize: int64(len(file)), Where: "id < 300", Columns: []string{"id", "string_col"}}
	plain, err := New(opts)
	require.NoError(t, err)
	want := runSession(t, plain, file)

	opts.Metadata = true
	s, err := New(opts)
	require.NoError(t, err)
	got := runSession(t, s, file)
	require.Equal(t, want.streams, got.streams)
	require.Equal(t, want.ranges, got.ranges)
	require.Equal(t, []StepKind{NeedRanges, Metadata}, got.kinds[:2])
	n := 0
	for _, k := range got.kinds {
		if k == Metadata {
			n++
		}
	}
	require.Equal(t, 1, n)
	m := s.Metadata()
	require.Equal(t, m.NumRows, got.meta.NumRows)
	require.Equal(t, len(m.RowGroups), len(got.meta.RowGroups))
	require.Equal(t, *m.CreatedBy, got.meta.CreatedBy)
	require.Equal(t, int64(len(file)), got.meta.FileSize)
	require.True(t, len(got.meta.SchemaIPC) > 0, "no schema in the Metadata step")
	require.True(t, Thrift(got.meta) == m, "the native Metadata step carries the decoded footer")
}

// Test_footerCache: a session with the FileKey of an earlier one asks for no tail and decodes
// no footer, and returns the same batches; another size under the same key is a miss.
func Test_footerCache(t *testing.T) {
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	c := NewFooterCache(8 << 20)
	opts := Options{FileSize: int64(len(file)), FileKey: "k", Where: "id < 300"}
	s1, err := NewCached(opts, c)
	require.NoError(t, err)
	first := runSession(t, s1, file)
	require.Equal(t, 1, c.Len())

	s2, err := NewCached(opts, c)
	require.NoError(t, err)
	second := runSession(t, s2, file)
	require.Equal(t, first.streams, second.streams)
	require.True(t, s2.meta == s1.meta, "the second session decoded the footer again")
	tail := Range{Off: int64(len(file)) - defaultTailSize, Len: defaultTailSize}
	require.True(t, first.ranges[0] == tail, "first session's first request", first.ranges[0])
	for _, r := range second.ranges {
		require.True(t, r.End() <= tail.Off || r.Off >= tail.End() || r != tail, "the second session asked for the tail again", r)
	}
	require.True(t, s2.Report().BytesRequested < s1.Report().BytesRequested, "bytes requested", s2.Report().BytesRequested, s1.Report().BytesRequested)

	// The same key with another size: the file changed, the entry is dropped.
	require.True(t, c.get("k", int64(len(file))+1) == nil, "a footer of another size was reused")
	require.Equal(t, 0, c.Len())
}

// Test_footerCacheBound: the cache holds at most its byte bound, dropping the least recently
// used footer first.
func Test_footerCacheBound(t *testing.T) {
	c := NewFooterCache(100)
	c.put(&footer{key: "a", size: 1, cost: 60})
	c.put(&footer{key: "b", size: 1, cost: 30})
	require.True(t, c.get("a", 1) != nil, "a")
	c.put(&footer{key: "c", size: 1, cost: 30}) // 120 > 100: b (least recent) goes
	require.True(t, c.get("b", 1) == nil, "b was kept")
	require.True(t, c.get("a", 1) != nil && c.get("c", 1) != nil, "a and c")
	c.put(&footer{key: "d", size: 1, cost: 101}) // larger than the bound: not kept
	require.True(t, c.get("d", 1) == nil, "d was kept")
	require.Equal(t, 2, c.Len())
}

// Test_filteredLimitStops: a filtered LIMIT reads in probes that start at one round trip of
// predicate bytes and stops once the limit is met, instead of filtering every candidate row
// group and page first; the rows are the first matches in file order either way.
func Test_filteredLimitStops(t *testing.T) {
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_tiny_pages_plain.parquet")
	run := func(o Options) (sessionLog, Report) {
		o.FileSize = int64(len(file))
		s, err := New(o)
		require.NoError(t, err)
		l := runSession(t, s, file)
		return l, s.Report()
	}
	q := Options{Where: "id >= 100", Columns: []string{"id", "string_col"}, Limit: 10, RoundTripBytes: 4 << 10}
	probed, pr := run(q)
	q.RoundTripBytes = 1 << 30 // a probe as large as the file: everything is filtered first
	whole, wr := run(q)
	require.Equal(t, whole.streams, probed.streams)
	require.Equal(t, int64(10), pr.RowsReturned)
	// Rows decided: filtered, or proved by their pages' statistics (which skips the filter).
	decided := func(r Report) int64 { return r.RowsScanned + r.RowsAllMatch }
	require.True(t, decided(pr) < decided(wr)/4, "rows decided", decided(pr), "of", decided(wr))
	// Beyond the 64 KiB tail (footer and page index), which both read.
	tail := int64(defaultTailSize)
	require.True(t, pr.BytesRequested-tail < (wr.BytesRequested-tail)/4, "bytes", pr.BytesRequested, "vs", wr.BytesRequested)
	t.Logf("probed: %d rows scanned, %d bytes, %d round trips; whole: %d rows, %d bytes, %d round trips",
		pr.RowsScanned, pr.BytesRequested, pr.RoundTrips, wr.RowsScanned, wr.BytesRequested, wr.RoundTrips)
}

// Test_disableLevels: each level switched off alone keeps the rows and stops that level's
// skipping (its counter no longer drops), and the report names it; an unknown name is an
// option error.
func Test_disableLevels(t *testing.T) {
	tests := []struct {
		name, file, where string
		level             string
		skipped           func(r Report) int // what the level skipped
	}{
		{name: "statistics", file: "hyparquet/rowgroups.parquet", where: "numbers < 3", level: LevelStatistics,
			skipped: func(r Report) int { return r.RowGroupsAfterSlice - r.RowGroupsAfterStats }},
		{name: "page index", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", where: "id < 10", level: LevelPageIndex,
			skipped: func(r Report) int { return r.PagesTotal - r.PagesAfterPageIndex }},
		{name: "bloom", file: "parquet-testing/data/data_index_bloom_encoding_stats.parquet", where: "String = 'nope'", level: LevelBloom,
			skipped: func(r Report) int { return r.RowGroupsAfterStats - r.RowGroupsAfterBloom }},
		{name: "dictionary", file: "hyparquet/dictionary_offset_indexed.parquet", where: "country = 'Chile'", level: LevelDictionary,
			skipped: func(r Report) int { return r.RowGroupsAfterBloom - r.RowGroupsAfterDict }},
		{name: "late materialization", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", where: "id < 10", level: LevelLateMaterialization,
			skipped: func(r Report) int {
				if strings.HasPrefix(r.LateMaterialization, "on") {
					return 1
				}
				return 0
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			run := func(disable []string) (sessionLog, Report) {
				s, err := New(Options{FileSize: int64(len(file)), Where: tc.where, Disable: disable, RoundTripBytes: 1024})
				require.NoError(t, err)
				l := runSession(t, s, file)
				return l, s.Report()
			}
			on, ron := run(nil)
			off, roff := run([]string{tc.level})
			require.Equal(t, on.streams, off.streams)
			require.True(t, tc.skipped(ron) > 0, "the level skipped nothing with it on", ron)
			require.Equal(t, 0, tc.skipped(roff))
			require.Equal(t, []string{tc.level}, roff.LevelsOff)
		})
	}
	_, err := New(Options{Disable: []string{"statistic"}})
	require.ErrorIs(t, err, ErrOptions)
}
