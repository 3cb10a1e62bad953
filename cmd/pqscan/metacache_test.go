package main

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/metacache/mctest"
	"github.com/pqscan/pqscan/internal/require"
)

// Two runs with --metadata-cache on one URL: the second sends no tail request, and its
// requests are the first's minus those of the tail; a file replaced between the runs gives
// the new rows; PQSCAN_METADATA_CACHE names the folder as the flag does.
func Test_metadataCache(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		t.Run(engine, func(t *testing.T) { testMetadataCache(t, engine) })
	}
}

func testMetadataCache(t *testing.T, engine string) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &mctest.Server{}
	s.Set(mctest.File(t, 40000, 0), `"a"`, t0)
	ts := httptest.NewServer(s)
	defer ts.Close()
	url := ts.URL + "/f.parquet"
	dir := t.TempDir()
	args := []string{"cat", url, "--engine", engine, "--where", "id >= 20000 AND id < 20003", "--explain", "--metadata-cache", dir}

	code, out1, stderr := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	first := s.Take()
	require.True(t, strings.Count(out1, "\n") == 3 && strings.Contains(out1, `"id":20000`), out1)
	code, out2, stderr := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	second := s.Take()
	require.Equal(t, out1, out2)
	var tail, rest []string
	for _, h := range first {
		if _, _, suffix := mctest.RangeOf(h); suffix {
			tail = append(tail, h)
		} else {
			rest = append(rest, h)
		}
	}
	require.True(t, len(tail) == 1, "the first run reads the tail", first)
	require.Equal(t, rest, second, "the second run's requests are the first's minus the tail")
	require.Equal(t, mctest.Bytes(first)-mctest.Bytes(tail), mctest.Bytes(second))
	rep := reportOf(t, stderr)
	require.Equal(t, []string{"tail", "plan"}, rep.MetadataFromCache, "the first run's plan was replayed")
	require.True(t, rep.RequestsSaved == 1 && rep.RoundTripsSaved == 1, rep)
	t.Logf("first run %v, second %v", first, second)

	// Replaced by a file of the same size: the new rows, no error, through the environment.
	s.Set(mctest.File(t, 40000, 5), `"b"`, t0.Add(time.Hour))
	t.Setenv(metadataCacheEnv, dir)
	code, out3, stderr := runCLI(t, args[:len(args)-2]...)
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(out3, `"id":20000,"v":5}`), out3)
	require.True(t, len(reportOf(t, stderr).MetadataFromCache) == 0, stderr)
	s.Take()
	code, out4, stderr := runCLI(t, args[:len(args)-2]...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, out3, out4)
	require.True(t, !slices.ContainsFunc(s.Take(), func(h string) bool { return strings.HasPrefix(h, "bytes=-") }), "no tail request")
}

// reportOf parses the scan report --explain prints to stderr.
func reportOf(t *testing.T, stderr string) (rep struct {
	MetadataFromCache []string `json:"metadataFromCache"`
	RequestsSaved     int64    `json:"requestsSaved"`
	RoundTripsSaved   int64    `json:"roundTripsSaved"`
}) {
	t.Helper()
	i := strings.Index(stderr, "{")
	require.True(t, i >= 0, stderr)
	require.NoError(t, json.NewDecoder(strings.NewReader(stderr[i:])).Decode(&rep), stderr)
	return rep
}
