// Package tailcache is a File's link to the persistent metadata cache (internal/metacache)
// while it is open, as jsbridge/src/tailcache.js is in JavaScript: the stored tail an open
// starts from (no request: the HTTP source is pinned to the stored size and validator, so the
// first response of a replaced file is ErrFileChanged and the File reads it again before any
// row is returned), the metadata-region bytes its scans fetch, and the scan report's
// MetadataFromCache, RequestsSaved and RoundTripsSaved. It is apart from the root package,
// which keeps only the API: it opens, confirms and restarts; this keeps the entry.
package tailcache

import (
	"bytes"
	"context"
	"sync"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/scan"
)

// delivering is a Source that counts the ranges its pinned HTTP source delivered
// (prefetch.Source): each was checked against the stored validators.
type delivering interface {
	Delivered() int64
}

// Link links a File read over HTTP to the metadata store: the entry of its URL (size,
// validators, the tail and page-index bytes fetched so far) and whether the File's metadata
// came from the store unconfirmed. A nil Link is no link.
type Link struct {
	c   *metacache.Cache
	url string

	mu         sync.Mutex
	entry      *metacache.Tail
	fromStore  bool  // the File's footer is the stored one
	confirmed  bool  // a response has shown the file is still the stored version
	dirty      bool  // entry holds bytes the store does not
	indexStart int64 // FileInfo.IndexStart: bytes fetched from there on are kept
	// plans holds, per options fingerprint, the ranges of the plan replayed or last stored
	// (planKey), so that a scan that read the same stores nothing.
	plans map[string]string
}

// New links url to the store s; nil without a store.
func New(s metacache.Store, url string) *Link {
	c := metacache.New(s)
	if c == nil {
		return nil
	}
	return &Link{c: c, url: url}
}

// Stored returns the link of url's stored entry, from which the File opens (nil: none), with
// the entry's size and validators, which the File's HTTP source is pinned to.
func (l *Link) Stored() (*Link, *metacache.Tail) {
	if l == nil {
		return nil, nil
	}
	t := l.c.Tail(l.url)
	if t == nil {
		return nil, nil
	}
	return &Link{c: l.c, url: l.url, entry: t, fromStore: true}, t
}

// Fresh is a new link to the same URL and store, for a File read from the server.
func (l *Link) Fresh() *Link {
	if l == nil {
		return nil
	}
	return &Link{c: l.c, url: l.url}
}

// URL is the File's URL.
func (l *Link) URL() string { return l.url }

// Drop removes the stored entry (it did not open, or the file was replaced).
func (l *Link) Drop() { l.c.DropTail(l.url) }

// FromStore reports whether the File's footer is the stored one.
func (l *Link) FromStore() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fromStore
}

// Pieces returns the stored tail, which a File pushes to its sessions.
func (l *Link) Pieces() []metacache.Piece {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.indexStart = 0
	return append([]metacache.Piece(nil), l.entry.Pieces...)
}

// Keep makes the entry of a File whose footer was just read from src (size bytes; tail: the
// bytes the footer read fetched), and stores it.
func (l *Link) Keep(size int64, src httpclient.Source, tail []metacache.Piece) {
	t := &metacache.Tail{Size: size}
	if v, ok := src.(httpclient.Versioned); ok {
		t.ETag, t.LastModified = v.Validators()
	}
	st := src.Stats()
	t.Requests, t.RoundTrips = st.Requests, st.RoundTrips
	for _, p := range tail {
		t.Add(p.Off, p.Bytes)
	}
	l.mu.Lock()
	l.entry, l.fromStore, l.confirmed, l.dirty = t, false, true, false
	l.mu.Unlock()
	l.c.PutTail(l.url, t)
}

// Watch makes a scan's driver keep what it fetches of the metadata region (the bytes from
// indexStart, FileInfo.IndexStart, to the end: bloom filters, page index) with the requests
// that fetched nothing else, and count the rounds that ask for nothing else (the round trips
// a returning reader saves), so that a returning reader asks for none of it; keep gets each
// piece added to the entry (later scans of the File push it too). The returned func ends
// the count when the scan ends.
func (l *Link) Watch(indexStart int64, d *drive.Driver, keep func(off int64, b []byte)) func() {
	if l == nil || indexStart <= 0 {
		return func() {}
	}
	l.mu.Lock()
	l.indexStart = indexStart
	start, size := l.indexStart, l.entry.Size
	l.mu.Unlock()
	// An index round costs a round trip when the Source sent a request between it and the next
	// round (index rounds are not taken as they arrive: the next starts after their fetch).
	var before int64 = -1
	settle := func() {
		if before < 0 {
			return
		}
		n := d.Src.Stats().Requests - before
		before = -1
		if n > 0 {
			l.mu.Lock()
			l.entry.RoundTrips++
			l.dirty = true
			l.mu.Unlock()
		}
	}
	d.OnRound = func(rs []scan.Range) {
		settle()
		for _, r := range rs {
			if r.Off < start {
				return
			}
		}
		before = d.Src.Stats().Requests
	}
	d.OnFetch = func(off int64, b []byte) {
		if end := off + int64(len(b)); end <= start || end > size {
			return
		}
		whole := off >= start // a request of metadata alone: one a returning reader saves
		if off < start {
			b, off = b[start-off:], start
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.entry.Covers(off, off+int64(len(b))) {
			return
		}
		l.entry.Add(off, b)
		if whole {
			l.entry.Requests++
		}
		l.dirty = true
		keep(off, bytes.Clone(b))
	}
	return settle
}

// Flush stores the entry when a scan added bytes to it.
func (l *Link) Flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !l.dirty {
		l.mu.Unlock()
		return
	}
	l.dirty = false
	b := metacache.MarshalTail(l.entry) // a copy: scans may add to the entry meanwhile
	l.mu.Unlock()
	t, err := metacache.UnmarshalTail(b)
	if err == nil {
		l.c.PutTail(l.url, t)
	}
}

// Report fills the scan report's metadata-cache fields.
func (l *Link) Report(rep *scan.Report) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.fromStore {
		rep.MetadataFromCache = []string{"tail"}
		rep.RequestsSaved, rep.RoundTripsSaved = l.entry.Requests, l.entry.RoundTrips
	}
	l.mu.Unlock()
	if err := l.c.Err(); err != nil {
		rep.MetadataCacheError = err.Error()
	}
}

// Confirm makes sure, before a scan's first row is returned, that the file is still the
// version its stored metadata is of: any response from src has shown it (every response is
// checked against the pinned validator and size; through a prefetch, a delivered range, as
// its failed requests are dropped), else a one-byte request does.
func (l *Link) Confirm(ctx context.Context, src httpclient.Source, size int64) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	done := !l.fromStore || l.confirmed
	l.mu.Unlock()
	if done {
		return nil
	}
	validated := src.Stats().Requests > 0
	if d, ok := src.(delivering); ok {
		// A prefetch's requests may all have failed (its errors are dropped): only a
		// delivered range shows the version.
		validated = d.Delivered() > 0
	}
	if !validated {
		err := src.Fetch(ctx, []scan.Range{{Off: size - 1, Len: 1}}, func(int64, []byte) error { return nil })
		if err != nil {
			return err
		}
	}
	l.mu.Lock()
	l.confirmed = true
	l.mu.Unlock()
	return nil
}
