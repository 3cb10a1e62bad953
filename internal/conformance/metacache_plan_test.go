package conformance

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/metacache/mctest"
	"github.com/pqscan/pqscan/internal/require"
)

// planWhere selects one row in a thousand: every page of v is read and filtered, then only
// the id pages of the matching rows (late materialization), a round after.
const planWhere = "v = 13"

// planScan opens url with the store and scans id where planWhere.
func planScan(t *testing.T, s *mctest.Server, url string, store pqscan.MetadataStore, engine pqscan.Engine) mcRun {
	t.Helper()
	return mcScanWith(t, s, url, store, engine, pqscan.ScanOptions{Columns: []string{"id"}, Where: planWhere})
}

// planWant is the answer of planScan over File(_, n, base).
func planWant(n, base int64) (rows, ids int64) {
	for i := range n {
		if base+i%1000 == 13 {
			rows, ids = rows+1, ids+i
		}
	}
	return
}

// A returning scan replays the first visit's plan: the same rows from a subset of the first
// visit's requests (those of the page index and footer are in the stored tail), in one
// round trip where the first visit's rounds (page index, v pages, id pages of the matching
// rows, each taken as it arrives) made many.
func TestMetadataCache_plan(t *testing.T) {
	for _, c := range []struct {
		name   string
		engine pqscan.Engine
	}{{name: "native"}, {name: "wazero", engine: wasmHost(t)}} {
		t.Run(c.name, func(t *testing.T) {
			s, url := mcServer(t, `"v1"`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			store, err := pqscan.MetadataDir(t.TempDir(), 0)
			require.NoError(t, err)
			wr, wi := planWant(40000, 0)

			first := planScan(t, s, url, store, c.engine)
			require.NoError(t, first.err)
			require.Equal(t, []int64{wr, wi}, []int64{first.rows, first.ids})
			require.True(t, first.rep.RoundTrips >= 2, "the engine's rounds", first.rep.RoundTrips)
			require.True(t, first.stats.RoundTrips > 2, "round trips", first.stats.RoundTrips)
			require.True(t, len(first.rep.MetadataFromCache) == 0)

			second := planScan(t, s, url, store, c.engine)
			require.NoError(t, second.err)
			require.Equal(t, []int64{wr, wi}, []int64{second.rows, second.ids})
			require.Equal(t, []string{"tail", "plan"}, second.rep.MetadataFromCache)
			require.Equal(t, int64(1), second.stats.RoundTrips, "its rounds cost one round trip")
			for _, h := range second.log {
				require.True(t, slices.Contains(first.log, h), "a request the first visit did not send", h)
			}
			require.Equal(t, int64(len(second.log)), second.stats.Requests, "the prefetch's requests are the scan's")
			require.Equal(t, mctest.Bytes(second.log), second.stats.Bytes)

			// The plan it replayed is the one it read: a third visit is the same.
			third := planScan(t, s, url, store, c.engine)
			require.NoError(t, third.err)
			require.Equal(t, second.log, third.log)
			require.Equal(t, int64(1), third.stats.RoundTrips)
			t.Logf("first visit %d requests, %d round trips; returning %d requests, %d round trip (engine rounds %d)",
				first.stats.Requests, first.stats.RoundTrips, second.stats.Requests, second.stats.RoundTrips, second.rep.RoundTrips)
		})
	}
}

// A file replaced between visits: the stale plan is fetched ahead against the stored
// validator, which the server refuses, and the scan reads the new file.
func TestMetadataCache_planOfReplacedFile(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range replacements {
		t.Run(c.name, func(t *testing.T) {
			s, url := mcServer(t, c.etag1, t0)
			store, err := pqscan.MetadataDir(t.TempDir(), 0)
			require.NoError(t, err)
			require.NoError(t, planScan(t, s, url, store, nil).err)
			require.Equal(t, []string{"tail", "plan"}, planScan(t, s, url, store, nil).rep.MetadataFromCache)

			s.Set(mctest.File(t, c.n2, c.base2), c.etag2, t0.Add(time.Hour))
			wr, wi := planWant(c.n2, c.base2)
			second := planScan(t, s, url, store, nil)
			require.NoError(t, second.err)
			require.Equal(t, []int64{wr, wi}, []int64{second.rows, second.ids}, "the new file's rows")
			require.True(t, len(second.rep.MetadataFromCache) == 0, second.rep.MetadataFromCache)

			third := planScan(t, s, url, store, nil)
			require.NoError(t, third.err)
			require.Equal(t, []int64{wr, wi}, []int64{third.rows, third.ids})
			require.Equal(t, []string{"tail", "plan"}, third.rep.MetadataFromCache, "the new version's plan")
			require.Equal(t, int64(1), third.stats.RoundTrips)
		})
	}
}

// memStore is a MetadataStore in memory whose plan entries a test can replace.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(k string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k], nil
}

func (s *memStore) Put(k string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[k] = v
	return nil
}

func (s *memStore) Delete(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

// setPlans replaces every plan entry's stored bytes with what f makes of its key.
func (s *memStore) setPlans(f func(key string) []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k := range s.m {
		if strings.HasPrefix(k, "plan\x00") {
			s.m[k] = f(k)
			n++
		}
	}
	return n
}

// A plan entry that is garbage, of another version or of other ranges never changes the
// rows: the scan asks for what it needs as without one.
func TestMetadataCache_badPlan(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lm := t0.Format(http.TimeFormat)
	s, url := mcServer(t, `"v1"`, t0)
	wr, wi := planWant(40000, 0)
	size := int64(len(mctest.File(t, 40000, 0)))
	for _, c := range []struct {
		name    string
		entry   func(key string) []byte
		replays bool
	}{
		{name: "garbage", entry: func(string) []byte { return []byte("garbage") }},
		{name: "malformed payload", entry: func(k string) []byte { return metacache.Encode(k, []byte{1, 2, 3}) }},
		{name: "range past the end", entry: func(k string) []byte {
			return metacache.Encode(k, metacache.MarshalPlan(&metacache.Plan{Size: size, ETag: `"v1"`, LastModified: lm, Ranges: []httprange.Range{{Off: size - 1, Len: 2}}}))
		}},
		{name: "another version", entry: func(k string) []byte {
			return metacache.Encode(k, metacache.MarshalPlan(&metacache.Plan{Size: size, ETag: `"v0"`, LastModified: lm, Ranges: []httprange.Range{{Off: 4, Len: 100}}}))
		}},
		{name: "other ranges", replays: true, entry: func(k string) []byte {
			return metacache.Encode(k, metacache.MarshalPlan(&metacache.Plan{Size: size, ETag: `"v1"`, LastModified: lm, Ranges: []httprange.Range{{Off: 4, Len: 100}, {Off: 1000, Len: 5000}}}))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := &memStore{}
			first := planScan(t, s, url, store, nil)
			require.NoError(t, first.err)
			require.Equal(t, 1, store.setPlans(c.entry))
			got := planScan(t, s, url, store, nil)
			require.NoError(t, got.err)
			require.Equal(t, []int64{wr, wi}, []int64{got.rows, got.ids})
			want := []string{"tail"}
			if c.replays {
				want = append(want, "plan")
			}
			require.Equal(t, want, got.rep.MetadataFromCache)
			// The scan stored its own plan again: the next visit replays it.
			next := planScan(t, s, url, store, nil)
			require.NoError(t, next.err)
			require.Equal(t, []string{"tail", "plan"}, next.rep.MetadataFromCache)
			require.Equal(t, int64(1), next.stats.RoundTrips)
		})
	}
}
