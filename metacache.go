package pqscan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/scan"
)

// MetadataStore keeps values by key across processes (Options.MetadataCache): Get returns
// (nil, nil) for a missing key; it may drop any value at any time. Values are entries with
// a version, their key and a checksum: whatever a store returns that is not an intact entry
// is ignored.
type MetadataStore = metacache.Store

// MetadataDir returns the MetadataStore in folder dir (created if missing), holding at most
// maxBytes (least recently used out first; <= 0 means 256 MiB). Processes may share it.
func MetadataDir(dir string, maxBytes int64) (MetadataStore, error) {
	d, err := metacache.NewDir(dir, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("pqscan: metadata cache: %w", err)
	}
	return d, nil
}

// fileCache links a File read over HTTP to the metadata store: the entry of its URL (size,
// validators, the tail and page-index bytes fetched so far) and whether the File's metadata
// came from the store unconfirmed.
type fileCache struct {
	c   *metacache.Cache
	url string

	mu         sync.Mutex
	entry      *metacache.Tail
	fromStore  bool  // the File's footer is the stored one
	confirmed  bool  // a response has shown the file is still the stored version
	dirty      bool  // entry holds bytes the store does not
	indexStart int64 // FileInfo.IndexStart: bytes fetched from there on are kept
}

// openHTTP opens the file at url, from its stored tail when Options.MetadataCache has one:
// no request is made then, and the HTTP source is pinned to the stored size and validator,
// so that the first response of a replaced file is ErrFileChanged (and the scan reads the
// file again, Reader.restart). A stored tail that does not open is dropped and the file read.
func openHTTP(ctx context.Context, url string, opts Options) (*File, error) {
	c := metacache.New(opts.MetadataCache)
	if t := c.Tail(url); t != nil {
		ho := opts.HTTP
		ho.FileSize, ho.ETag, ho.LastModified = t.Size, t.ETag, t.LastModified
		mc := &fileCache{c: c, url: url, entry: t, fromStore: true}
		f, err := openWith(ctx, httpclient.NewHTTP(url, ho), nil, url, opts, mc)
		if err == nil || ctx.Err() != nil {
			return f, err
		}
		c.DropTail(url)
	}
	var mc *fileCache
	if c != nil {
		mc = &fileCache{c: c, url: url}
	}
	return openWith(ctx, httpclient.NewHTTP(url, opts.HTTP), nil, url, opts, mc)
}

// pieces returns the stored tail as the pieces a File pushes to its sessions.
func (m *fileCache) pieces() []piece {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.indexStart = 0
	var out []piece
	for _, p := range m.entry.Pieces {
		out = append(out, piece{p.Off, p.Bytes})
	}
	return out
}

// stored makes the entry of a File whose footer was just read from the server, and stores it.
func (m *fileCache) stored(f *File) {
	t := &metacache.Tail{Size: f.size}
	if v, ok := f.src.(httpclient.Versioned); ok {
		t.ETag, t.LastModified = v.Validators()
	}
	st := f.src.Stats()
	t.Requests, t.RoundTrips = st.Requests, st.RoundTrips
	for _, p := range f.tail {
		t.Add(p.off, p.b)
	}
	m.mu.Lock()
	m.entry, m.fromStore, m.confirmed, m.dirty = t, false, true, false
	m.mu.Unlock()
	m.c.PutTail(m.url, t)
}

// watch makes a scan's driver keep what it fetches of the metadata region (the bytes from
// FileInfo.IndexStart to the end: bloom filters, page index) with the requests that fetched
// nothing else, and count the rounds that ask for nothing else (the round trips a returning
// reader saves), so that a returning reader asks for none of it. The returned func
// ends the count when the scan ends.
func (m *fileCache) watch(f *File, info *FileInfo, d *drive.Driver) func() {
	if m == nil || info == nil || info.IndexStart <= 0 {
		return func() {}
	}
	m.mu.Lock()
	m.indexStart = info.IndexStart
	start, size := m.indexStart, m.entry.Size
	m.mu.Unlock()
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
			m.mu.Lock()
			m.entry.RoundTrips++
			m.dirty = true
			m.mu.Unlock()
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
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.entry.Covers(off, off+int64(len(b))) {
			return
		}
		m.entry.Add(off, b)
		if whole {
			m.entry.Requests++
		}
		m.dirty = true
		f.mu.Lock()
		if f.mc == m { // later scans of this File push it too
			f.tail = append(f.tail, piece{off, bytes.Clone(b)})
		}
		f.mu.Unlock()
	}
	return settle
}

// flush stores the entry when a scan added bytes to it.
func (m *fileCache) flush() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if !m.dirty {
		m.mu.Unlock()
		return
	}
	m.dirty = false
	b := metacache.MarshalTail(m.entry) // a copy: scans may add to the entry meanwhile
	m.mu.Unlock()
	t, err := metacache.UnmarshalTail(b)
	if err == nil {
		m.c.PutTail(m.url, t)
	}
}

// report fills the scan report's metadata-cache fields.
func (m *fileCache) report(rep *Report) {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.fromStore {
		rep.MetadataFromCache = []string{"tail"}
		rep.RequestsSaved, rep.RoundTripsSaved = m.entry.Requests, m.entry.RoundTrips
	}
	m.mu.Unlock()
	if err := m.c.Err(); err != nil {
		rep.MetadataCacheError = err.Error()
	}
}

// confirm makes sure, before the scan's first row is returned, that the file is still the
// version its stored metadata is of: any response has shown it (every response is checked
// against the pinned validator and size), else a one-byte request does.
func (r *Reader) confirm() error {
	m := r.mc
	if m == nil {
		return nil
	}
	m.mu.Lock()
	done := !m.fromStore || m.confirmed
	m.mu.Unlock()
	if done {
		return nil
	}
	src := r.d.Src
	if src.Stats().Requests == 0 {
		size := r.file.Size()
		err := src.Fetch(r.ctx, []scan.Range{{Off: size - 1, Len: 1}}, func(int64, []byte) error { return nil })
		if err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.confirmed = true
	m.mu.Unlock()
	return nil
}

// restartable says whether err is a change of the file that the Reader can answer by
// reading it again: its metadata came from the store and no row has been returned.
func (r *Reader) restartable(err error) bool {
	if r.file == nil || r.mc == nil || r.returned || !errors.Is(err, ErrFileChanged) {
		return false
	}
	r.mc.mu.Lock()
	defer r.mc.mu.Unlock()
	return r.mc.fromStore
}

// restart drops the stale stored metadata, reads the file's footer again and starts the scan
// over; a file whose columns changed is ErrFileChanged (the caller has the old schema).
func (r *Reader) restart(cause error) error {
	f, old := r.file, r.schema
	if r.d.Sess != nil {
		r.d.Sess.Close()
	}
	if err := f.reload(r.ctx, r.mc); err != nil {
		return fmt.Errorf("pqscan: %s: %w", f.name, err)
	}
	if err := r.start(); err != nil {
		return err
	}
	if old != nil && !old.Equal(r.schema) {
		r.d.Sess.Close()
		return fmt.Errorf("pqscan: %s: %w (the columns changed: %v)", f.name, ErrFileChanged, cause)
	}
	return nil
}

// reload reads the footer of a File whose stored metadata (stale) is mc again, unless
// another scan of the File did so already, and stores the new entry.
func (f *File) reload(ctx context.Context, stale *fileCache) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mc != stale {
		return nil
	}
	stale.c.DropTail(stale.url)
	nf := &File{name: f.name, opts: f.opts, mc: &fileCache{c: stale.c, url: stale.url}}
	nf.src = httpclient.NewHTTP(stale.url, f.opts.HTTP)
	size, err := nf.src.Size(ctx)
	if err != nil {
		return err
	}
	nf.size = size
	nf.key = fmt.Sprintf("pqscan.File#%d:%d", fileSeq.Add(1), size)
	if err := nf.readFooter(ctx); err != nil {
		return err
	}
	nf.mc.stored(nf)
	f.src, f.size, f.key, f.schema, f.info, f.tail, f.mc = nf.src, nf.size, nf.key, nf.schema, nf.info, nf.tail, nf.mc
	return nil
}
