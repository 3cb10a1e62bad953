package metacache

import (
	"context"
	"sync"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
)

// NewHTTP is the HTTP source of a dataset's file at url (a listed object: o.ETag is the
// listing's; or a table snapshot's data file, immutable by the table's protocol: o.FileSize
// is its size) linked to c: when c holds a tail of that size and that ETag (or, for an
// immutable file, any), ranges inside it are served from it without a request and the source
// is pinned to the tail's validators, so that a later response of another version is
// ErrFileChanged; otherwise the tail the scan fetches (a range that ends at the file's end) is
// stored. A nil c, or a listed file without an ETag, gives the plain source. stored is the
// tail the source serves (nil: none), for the dataset's report.
func NewHTTP(c *Cache, url string, o httpclient.Options, immutable bool) (src httpclient.Source, stored *Tail) {
	if c == nil || o.FileSize <= 0 || o.ETag == "" && !immutable {
		return httpclient.NewHTTP(url, o), nil
	}
	t := c.Tail(url)
	if t != nil && (t.Size != o.FileSize || o.ETag != "" && o.ETag != t.ETag) {
		c.DropTail(url) // another version of the file
		t = nil
	}
	if t != nil && o.ETag == "" {
		o.ETag, o.LastModified = t.ETag, t.LastModified
	}
	if t != nil {
		o.RangeKnown = true // the stored tail was read by range: the first round goes out whole
	}
	return &source{Source: httpclient.NewHTTP(url, o), c: c, url: url, size: o.FileSize, tail: t}, t
}

// source serves ranges inside a stored tail from it, and stores the tail it fetches when none
// was stored.
type source struct {
	httpclient.Source
	c    *Cache
	url  string
	size int64

	mu     sync.Mutex
	tail   *Tail // stored (nil: none yet)
	stored bool
}

func (s *source) Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error {
	s.mu.Lock()
	t := s.tail
	s.mu.Unlock()
	var rest []httprange.Range
	for _, r := range ranges {
		if r.Off < 0 { // a suffix
			r.Off, r.Len = max(s.size+r.Off, 0), min(-r.Off, s.size)
		}
		if b := t.bytes(r.Off, r.Off+r.Len); b != nil {
			if err := deliver(r.Off, b); err != nil {
				return err
			}
			continue
		}
		rest = append(rest, r)
	}
	if len(rest) == 0 {
		return nil
	}
	return s.Source.Fetch(ctx, rest, func(off int64, b []byte) error {
		if off+int64(len(b)) == s.size && t == nil {
			s.keep(off, b)
		}
		return deliver(off, b)
	})
}

// keep stores the file's tail as fetched, once, with the validators the response gave.
func (s *source) keep(off int64, b []byte) {
	s.mu.Lock()
	done := s.stored
	s.stored = true
	s.mu.Unlock()
	v, ok := s.Source.(httpclient.Versioned)
	if done || !ok {
		return
	}
	t := &Tail{Size: s.size, Requests: 1, RoundTrips: 1}
	t.ETag, t.LastModified = v.Validators()
	t.Add(off, b)
	s.c.PutTail(s.url, t)
}

// bytes returns the bytes [off, end) when one piece of t holds them all (t may be nil).
func (t *Tail) bytes(off, end int64) []byte {
	if t == nil {
		return nil
	}
	for _, p := range t.Pieces {
		if off >= p.Off && end <= p.Off+int64(len(p.Bytes)) {
			return p.Bytes[off-p.Off : end-p.Off]
		}
	}
	return nil
}
