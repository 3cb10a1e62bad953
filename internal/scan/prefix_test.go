package scan

import (
	"bytes"
	"testing"

	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_chunkPrefix: without an offset index, a limit reads only a prefix of each column chunk
// (grown until its page headers hold the rows wanted), and returns the same rows as a full read.
func Test_chunkPrefix(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 150_000, Layout: events.SmallRG, RowGroupRows: 65536, Seed: 1}))
	file := buf.Bytes()
	for _, tc := range []struct {
		name          string
		limit, offset int64
		maxShare      float64 // the most of the file the scan may read
	}{
		{name: "first 100 rows", limit: 100, maxShare: 0.2},
		{name: "rows 5000..5100", limit: 100, offset: 5000, maxShare: 0.2},
		// The first row group's last rows need its whole chunks; the second only a prefix.
		{name: "crossing into the second row group", limit: 1000, offset: 65000, maxShare: 0.65},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Limit: tc.limit, Offset: tc.offset, BatchRows: 4096}
			got, n, err := drive(t, file, o)
			require.NoError(t, err)
			require.Equal(t, tc.limit, n)
			s, err := New(Options{FileSize: int64(len(file)), Limit: tc.limit, Offset: tc.offset})
			require.NoError(t, err)
			for st := s.Next(); st.Kind != Done; st = s.Next() {
				require.NoError(t, st.Err)
				for _, r := range st.Ranges {
					require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
				}
			}
			rep := s.Report()
			t.Logf("%d of %d bytes, %d round trips", rep.BytesRequested, len(file), rep.RoundTrips)
			require.True(t, float64(rep.BytesRequested) < tc.maxShare*float64(len(file)), "read", rep.BytesRequested, "of", len(file))
			// Same rows as the whole file read without a limit, then sliced.
			all, _, err := drive(t, file, Options{NoPrune: true, BatchRows: 4096})
			require.NoError(t, err)
			want := rowLines(t, all)[tc.offset : tc.offset+tc.limit]
			require.Equal(t, want, rowLines(t, got))
		})
	}
}

func rowLines(t *testing.T, streams [][]byte) []string {
	var out []string
	for _, l := range bytes.Split(concatBatches(t, streams), []byte{'\n'}) {
		if len(l) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}

// Test_chunkPrefixGrows: a first guess too small for the rows wanted is doubled until the page
// headers show the rows are in; the rows are the same.
func Test_chunkPrefixGrows(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 70_000, Layout: events.SmallRG, RowGroupRows: 65536, Seed: 2}))
	file := buf.Bytes()
	defer func(v int64) { prefixMin = v }(prefixMin)
	prefixMin = 1
	s, err := New(Options{FileSize: int64(len(file)), Limit: 3000})
	require.NoError(t, err)
	var streams [][]byte
	for st := s.Next(); st.Kind != Done; st = s.Next() {
		require.NoError(t, st.Err)
		if st.Kind == Batch {
			streams = append(streams, append([]byte(nil), st.IPC...))
		}
		for _, r := range st.Ranges {
			require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
		}
	}
	rep := s.Report()
	require.True(t, rep.RoundTrips > 2, "the prefix never grew", rep.RoundTrips)
	all, _, err := drive(t, file, Options{NoPrune: true})
	require.NoError(t, err)
	require.Equal(t, rowLines(t, all)[:3000], rowLines(t, streams))
}

// Test_chunkPrefixCached: a prefix that proves too short while its doubled range is already
// cached (a sorted scan's key pass read the whole chunk before its row pass planned a prefix)
// keeps growing until it holds the rows wanted, instead of decoding a page cut short
// (parquet-testing lz4_raw_compressed_larger: one page of 380 KB, no offset index).
func Test_chunkPrefixCached(t *testing.T) {
	file := testcorpus.Read(t, "parquet-testing/data/lz4_raw_compressed_larger.parquet")
	for _, o := range []Options{
		{Where: "a >= '611662a4'", OrderBy: "a", Limit: 1},
		{Where: "a >= '40d6f3e7'", OrderBy: "a DESC", Limit: 4},
	} {
		got, _, err := drive(t, file, o)
		require.NoError(t, err, o.Where)
		o.NoPrune = true
		want, _, err := drive(t, file, o)
		require.NoError(t, err, o.Where)
		require.Equal(t, rowLines(t, want), rowLines(t, got), o.Where)
		require.Equal(t, int(o.Limit), len(rowLines(t, got)))
	}
}
