// Package faultserver is an HTTP file server for tests that misbehaves on request. It serves
// files from a directory or registered in-memory blobs with full Range support
// (http.ServeContent), strong ETags and CORS, counts requests and bytes per path, can add
// latency and a bandwidth cap, and injects one fault per request selected by the URL:
//
//	/<file>                  the good variant
//	/fault/<mode>/<file>     the same file served with fault <mode> (see the Mode constants)
//
// so that one server serves good and bad variants side by side. Faults that happen "once" count
// attempts per URL path, which makes them deterministic; Reset starts the counts again.
//
// It is native test infrastructure (the Go tests of internal/httprange/httpclient and the hosts, and the
// browser end-to-end tests through a CLI command); it never goes into the wasm module.
package faultserver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value serves only registered blobs, with no latency.
type Options struct {
	// Dir is the directory files are served from; "" serves only blobs registered with Add.
	// Registered blobs take precedence.
	Dir string
	// Latency is added before every response (not preflights), emulating a round trip.
	Latency time.Duration
	// BytesPerSecond caps the body bandwidth of each response; 0 means unlimited.
	BytesPerSecond int64
	// SlowFirstByte is the delay of the "slow" mode before the response headers; 0 means 2 s.
	SlowFirstByte time.Duration
	// RetryAfter is the Retry-After value (seconds) of the 503-once and 429-once modes.
	RetryAfter int
	// NoExposeHeaders omits Access-Control-Expose-Headers everywhere (as the no-expose mode
	// does for one path), to test what a browser reports when Content-Range is hidden.
	NoExposeHeaders bool
	// ListPageSize is the most keys one ListObjectsV2 page returns (S3's is 1000); small
	// values make tests paginate.
	ListPageSize int
	// ListFault is a listing fault mode (ModeListError, ModeListTruncated, ModeListLoop)
	// every ListObjectsV2 answer has.
	ListFault string
	// RedirectBase is the base URL ("http://127.0.0.1:port") the redirect mode sends clients
	// to; Start sets it to the server's second listener.
	RedirectBase string
}

// Fault modes, selected by /fault/<mode>/<file>.
const (
	ModeIgnoreRange    = "ignore-range"     // 200 with the whole file, Range ignored
	ModeWrongRange     = "wrong-range"      // 206 for a range shifted by one byte
	ModeNoContentRange = "no-content-range" // 206 without a Content-Range header
	ModeShortBody      = "short-body"       // 206 whose (chunked) body ends after half the bytes
	ModeResetOnce      = "reset-once"       // first attempt: connection reset mid-body
	ModeResetAlways    = "reset-always"     // every attempt: connection reset mid-body
	Mode503Once        = "503-once"         // first attempt: 503 with Retry-After
	Mode429Once        = "429-once"         // first attempt: 429 with Retry-After
	ModeSlow           = "slow"             // headers delayed by SlowFirstByte
	ModeETagChange     = "etag-change"      // after the first attempt: other bytes, other ETag
	ModeTruncate       = "truncate"         // after the first attempt: half the file, same ETag
	ModeGzip           = "gzip"             // range response with Content-Encoding: gzip
	ModeRedirect       = "redirect"         // 307 to the same file on RedirectBase
	ModeNoExpose       = "no-expose"        // CORS without Access-Control-Expose-Headers
)

// Modes lists every fault mode.
var Modes = []string{
	ModeIgnoreRange, ModeWrongRange, ModeNoContentRange, ModeShortBody, ModeResetOnce,
	ModeResetAlways, Mode503Once, Mode429Once, ModeSlow, ModeETagChange, ModeTruncate,
	ModeGzip, ModeRedirect, ModeNoExpose,
}

// PathStats counts the traffic of one URL path.
type PathStats struct {
	Requests   int64 // GET and HEAD requests
	Preflights int64 // CORS OPTIONS requests
	Bytes      int64 // response body bytes written
}

// Server is an http.Handler; it is safe for concurrent use.
type Server struct {
	opt Options

	mu       sync.Mutex
	blobs    map[string]blob
	stats    map[string]*PathStats
	attempts map[string]int
	servers  []*http.Server

	// wait blocks for d (> 0) or until ctx is done, reporting whether d elapsed: the latency,
	// slow-mode and bandwidth delays all go through it (a timer; tests record or hold them).
	wait func(ctx context.Context, d time.Duration) bool
}

// blob is one version of a file.
type blob struct {
	ra      io.ReaderAt
	size    int64
	modTime time.Time
	etag    string
	closer  io.Closer
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.SlowFirstByte <= 0 {
		opts.SlowFirstByte = 2 * time.Second
	}
	return &Server{
		opt:      opts,
		blobs:    map[string]blob{},
		stats:    map[string]*PathStats{},
		attempts: map[string]int{},
		wait:     waitTimer,
	}
}

// Add registers an in-memory file served at /<name>. The server keeps data; the caller must not
// modify it afterwards.
func (s *Server) Add(name string, data []byte) {
	h := fnv.New64a()
	h.Write(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blobs[strings.TrimPrefix(path.Clean("/"+name), "/")] = blob{
		ra:      strings.NewReader(string(data)),
		size:    int64(len(data)),
		modTime: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		etag:    fmt.Sprintf(`"%016x-%x"`, h.Sum64(), len(data)),
	}
}

// Stats returns a copy of the per-path counters.
func (s *Server) Stats() map[string]PathStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]PathStats, len(s.stats))
	for p, st := range s.stats {
		out[p] = *st
	}
	return out
}

// Total sums the counters of every path.
func (s *Server) Total() PathStats {
	var t PathStats
	for _, st := range s.Stats() {
		t.Requests += st.Requests
		t.Preflights += st.Preflights
		t.Bytes += st.Bytes
	}
	return t
}

// Reset clears the counters and the per-path attempt counts of the "once" modes.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.stats)
	clear(s.attempts)
}

func (s *Server) pathStats(p string) *PathStats {
	st := s.stats[p]
	if st == nil {
		st = &PathStats{}
		s.stats[p] = st
	}
	return st
}

// count records a request and returns its 1-based attempt number for the path.
func (s *Server) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pathStats(p).Requests++
	s.attempts[p]++
	return s.attempts[p]
}

func (s *Server) addBytes(p string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pathStats(p).Bytes += n
}

// splitPath returns the fault mode ("" for none) and the file name of a URL path.
func splitPath(p string) (mode, name string) {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if rest, ok := strings.CutPrefix(p, "fault/"); ok {
		mode, name, _ = strings.Cut(rest, "/")
		return mode, name
	}
	return "", p
}

var errNotFound = errors.New("faultserver: file not found")

// open returns the current version of the named file.
func (s *Server) open(name string) (blob, error) {
	s.mu.Lock()
	b, ok := s.blobs[name]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	if s.opt.Dir == "" || name == "" || strings.Contains(name, "..") {
		return blob{}, errNotFound
	}
	f, err := os.Open(filepath.Join(s.opt.Dir, filepath.FromSlash(name)))
	if err != nil {
		return blob{}, errNotFound
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return blob{}, errNotFound
	}
	return blob{
		ra:      f,
		size:    fi.Size(),
		modTime: fi.ModTime(),
		etag:    fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size()),
		closer:  f,
	}, nil
}

func (s *Server) cors(w http.ResponseWriter, mode string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "Range, If-Match, If-Unmodified-Since")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	if !s.opt.NoExposeHeaders && mode != ModeNoExpose {
		h.Set("Access-Control-Expose-Headers", "Content-Range, Content-Length, ETag, Last-Modified, Accept-Ranges")
	}
}

// ServeHTTP serves GET, HEAD and CORS preflights.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := path.Clean("/" + r.URL.Path)
	mode, name := splitPath(r.URL.Path)
	s.cors(w, mode)
	if r.Method == http.MethodOptions {
		s.mu.Lock()
		s.pathStats(p).Preflights++
		s.mu.Unlock()
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "faultserver: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if isListing(r) {
		if !s.pause(r.Context(), s.opt.Latency) {
			return
		}
		s.serveListing(w, r, mode, name)
		return
	}
	attempt := s.count(p)
	if !s.pause(r.Context(), s.opt.Latency) {
		return
	}
	if mode != "" && !knownMode(mode) {
		http.Error(w, "faultserver: unknown fault mode "+mode, http.StatusNotFound)
		return
	}
	b, err := s.open(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if b.closer != nil {
		defer b.closer.Close()
	}
	cw := &countingWriter{ResponseWriter: w, s: s, path: p, bps: s.opt.BytesPerSecond}
	s.serveMode(cw, r, mode, name, b, attempt)
}

func knownMode(m string) bool {
	for _, k := range Modes {
		if k == m {
			return true
		}
	}
	return false
}

// serve is the good behaviour: ServeContent with a strong ETag, which also answers If-Match,
// If-Unmodified-Since and HEAD.
func serve(w http.ResponseWriter, r *http.Request, b blob) {
	w.Header().Set("ETag", b.etag)
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", b.modTime, io.NewSectionReader(b.ra, 0, b.size))
}

// pause waits d unless ctx is done first; it reports whether to go on.
func (s *Server) pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	return s.wait(ctx, d)
}

// waitTimer is Server.wait outside tests.
func waitTimer(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
