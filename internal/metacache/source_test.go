package metacache

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
)

// TestSourceServesStoredTail: a dataset's file opened again (the same size and ETag the
// listing gives) reads its tail from the store without a request; another ETag, another size
// or no stored tail asks the server, and a replaced file's data request is refused.
func TestSourceServesStoredTail(t *testing.T) {
	var mu sync.Mutex
	body, etag := bytes.Repeat([]byte("0123456789"), 100), `"v1"`
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		b, e := body, etag
		mu.Unlock()
		w.Header().Set("ETag", e)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(b))
	}))
	defer srv.Close()
	d, err := NewDir(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := New(d)
	ctx := context.Background()
	tail := []httprange.Range{{Off: 900, Len: 100}}
	read := func(o httpclient.Options, rs []httprange.Range) ([]byte, int, error) {
		mu.Lock()
		requests = 0
		mu.Unlock()
		var got []byte
		src, _ := NewHTTP(c, srv.URL+"/f", o, true)
		err := src.Fetch(ctx, rs, func(_ int64, b []byte) error {
			got = append(got, b...)
			return nil
		})
		mu.Lock()
		defer mu.Unlock()
		return got, requests, err
	}
	o := httpclient.Options{FileSize: 1000, ETag: `"v1"`}
	for i, want := range []int{1, 0} {
		got, n, err := read(o, tail)
		if err != nil || n != want || !bytes.Equal(got, body[900:]) {
			t.Fatalf("read %d: %d requests (want %d), %q, %v", i, n, want, got, err)
		}
	}
	if _, n, _ := read(httpclient.Options{FileSize: 1000}, []httprange.Range{{Off: -50}}); n != 0 {
		t.Fatalf("a suffix inside the stored tail: %d requests", n)
	}
	// Replaced: the listing's ETag differs, the stored tail is dropped.
	mu.Lock()
	body, etag = bytes.Repeat([]byte("abcdefghij"), 100), `"v2"`
	mu.Unlock()
	if got, n, err := read(httpclient.Options{FileSize: 1000, ETag: `"v2"`}, tail); err != nil || n != 1 || !bytes.Equal(got, body[900:]) {
		t.Fatalf("replaced: %d requests, %q, %v", n, got, err)
	}
	// Without an ETag from the listing (a table's data file) the source is pinned to the
	// stored one: a replaced file's data request fails instead of mixing versions.
	c.PutTail(srv.URL+"/f", &Tail{Size: 1000, ETag: `"v1"`, Pieces: []Piece{{Off: 900, Bytes: body[900:]}}})
	if _, _, err := read(httpclient.Options{FileSize: 1000}, []httprange.Range{{Off: 0, Len: 10}}); err == nil {
		t.Fatal("a data request of a replaced file succeeded")
	}
	// Another size: not the stored file.
	if _, n, _ := read(httpclient.Options{FileSize: 999}, []httprange.Range{{Off: 899, Len: 100}}); n != 1 {
		t.Fatalf("another size: %d requests", n)
	}
}
