package tailcache

import (
	"context"
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// memStore is a Store in memory.
type memStore map[string][]byte

func (m memStore) Get(k string) ([]byte, error) { return m[k], nil }
func (m memStore) Put(k string, v []byte) error { m[k] = v; return nil }
func (m memStore) Delete(k string) error        { delete(m, k); return nil }

// versioned is a Source of a file of size bytes with an ETag, counting its requests.
type versioned struct {
	httpclient.Source
	size     int64
	requests int64
}

func (v *versioned) Validators() (string, string) { return `"v1"`, "" }
func (v *versioned) Stats() httpclient.Stats {
	return httpclient.Stats{Requests: v.requests, RoundTrips: v.requests}
}
func (v *versioned) Fetch(_ context.Context, rs []httprange.Range, deliver func(int64, []byte) error) error {
	v.requests++
	for _, r := range rs {
		if err := deliver(r.Off, make([]byte, r.Len)); err != nil {
			return err
		}
	}
	return nil
}

// Test_linkRoundTrip: a File's tail kept from the server is the next open's stored tail (its
// pieces, size, validator and what fetching them cost), that open needs one confirming request
// before its first row, and a scan's report says what the store saved.
func Test_linkRoundTrip(t *testing.T) {
	store := memStore{}
	const url = "https://h/f.parquet"
	require.True(t, New(nil, url) == nil, "no store, no link")
	first := New(store, url)
	stale, _ := first.Stored()
	require.True(t, stale == nil, "nothing stored yet")
	src := &versioned{size: 1000, requests: 2}
	first.Keep(1000, src, []metacache.Piece{{Off: 900, Bytes: make([]byte, 100)}})
	require.True(t, !first.FromStore())

	again, tail := New(store, url).Stored()
	require.True(t, again != nil && again.FromStore())
	require.Equal(t, int64(1000), tail.Size)
	require.Equal(t, `"v1"`, tail.ETag)
	require.Equal(t, 1, len(again.Pieces()))

	var rep scan.Report
	again.Report(&rep)
	require.Equal(t, []string{"tail"}, rep.MetadataFromCache)
	require.Equal(t, int64(2), rep.RequestsSaved)

	fresh := &versioned{size: 1000}
	require.NoError(t, again.Confirm(context.Background(), fresh, 1000))
	require.Equal(t, int64(1), fresh.requests)
	require.NoError(t, again.Confirm(context.Background(), fresh, 1000))
	require.Equal(t, int64(1), fresh.requests, "confirmed once")

	again.Drop()
	gone, _ := New(store, url).Stored()
	require.True(t, gone == nil, "dropped")
}
