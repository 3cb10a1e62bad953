package tailcache

import (
	"context"
	"errors"
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/prefetch"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

func rg(off, n int64) scan.Range { return scan.Range{Off: off, Len: n} }

// Test_plan: a scan's plan leaves out what the tail holds, is kept under its fingerprint for
// the entry's version, is replayed only by a File opened from that entry, and is not written
// again for the same bytes.
func Test_plan(t *testing.T) {
	store := memStore{}
	const url = "https://h/f.parquet"
	first := New(store, url)
	first.Keep(1000, &versioned{size: 1000, requests: 1}, []metacache.Piece{{Off: 900, Bytes: make([]byte, 100)}})
	require.True(t, first.Plan("fp") == nil, "a File read from the server replays nothing")
	first.KeepPlan("fp", []scan.Range{rg(10, 20), rg(950, 10), rg(-8, 8), rg(100, 0), rg(10, 20), rg(300, 50)})

	again, _ := New(store, url).Stored()
	p := again.Plan("fp")
	require.True(t, p != nil)
	require.Equal(t, []httprange.Range{rg(10, 20), rg(300, 50)}, p.Ranges, "the tail's, suffix, empty and repeated ranges left out")
	require.Equal(t, `"v1"`, p.ETag)
	require.True(t, again.Plan("other") == nil)

	n := len(store)
	writes := 0
	counting := &countingStore{memStore: store, puts: &writes}
	again.c = metacache.New(counting)
	again.KeepPlan("fp", []scan.Range{rg(10, 10), rg(20, 10), rg(300, 50)})
	require.Equal(t, 0, writes, "the same bytes in other pieces: not written again")
	again.KeepPlan("fp", []scan.Range{rg(10, 20)})
	require.Equal(t, 1, writes)
	require.Equal(t, n, len(store))

	// Limits and versions.
	big := make([]scan.Range, metacache.PlanMaxRanges+1)
	for i := range big {
		big[i] = rg(int64(i), 1)
	}
	again.KeepPlan("many", big)
	require.True(t, store["plan\x00"+url+"\x00many"] == nil, "too many ranges")
	stale := &metacache.Plan{Size: 1000, ETag: `"v0"`, Ranges: []httprange.Range{rg(0, 1)}}
	metacache.New(store).PutPlan(url, "stale", stale)
	require.True(t, again.Plan("stale") == nil, "a plan of another version")

	unversioned := New(store, "https://h/g.parquet")
	unversioned.Keep(1000, &noValidators{versioned{size: 1000}}, nil)
	unversioned.KeepPlan("fp", []scan.Range{rg(0, 10)})
	require.True(t, store["plan\x00https://h/g.parquet\x00fp"] == nil, "no validator, no plan")
}

type countingStore struct {
	memStore
	puts *int
}

func (c *countingStore) Put(k string, v []byte) error { *c.puts++; return c.memStore.Put(k, v) }

type noValidators struct{ versioned }

func (*noValidators) Validators() (string, string) { return "", "" }

// failing fails every Fetch, counting its requests.
type failing struct{ versioned }

func (f *failing) Fetch(context.Context, []httprange.Range, func(int64, []byte) error) error {
	f.requests++
	return errors.New("down")
}

// Test_confirmAfterFailedPrefetch: a stored tail's confirmation needs a delivered range, not
// a request: a prefetch whose requests all failed leaves the one-byte check to do.
func Test_confirmAfterFailedPrefetch(t *testing.T) {
	store := memStore{}
	const url = "https://h/f.parquet"
	New(store, url).Keep(1000, &versioned{size: 1000, requests: 1}, []metacache.Piece{{Off: 900, Bytes: make([]byte, 100)}})
	l, _ := New(store, url).Stored()
	src := &failing{versioned{size: 1000}}
	pf := prefetch.New(src)
	pf.Start(context.Background(), []httprange.Range{rg(0, 10)})
	pf.Stop()
	require.Equal(t, int64(1), src.requests)
	require.Error(t, l.Confirm(context.Background(), pf, 1000), "the one-byte check went out")
	require.Equal(t, int64(2), src.requests)
}
