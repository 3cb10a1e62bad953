package main

// The static side of the bench server — pages, bundles and the contenders' wasm modules —
// served as a CDN would serve them: brotli-compressed where the browser accepts it, and
// (for the cold page-load cells) cacheable, so that a second page load in the same browser
// profile comes from Chromium's HTTP cache and its code cache can apply.
//
// The compressed copies are made once by the driver (e2e/bench/lib.js, zlib brotli q11, cached
// by size and mtime) into -br DIR, mirroring the URL paths: DIR/pqscan/pqscan.wasm.br is the
// body of /pqscan/pqscan.wasm. Compressing at start-up here would need a brotli encoder in the
// root module, which RATIONALE.md keeps to tests; Node has one built in.
//
// Every static request is logged (GET /__bench/static-log reads and clears it), with the
// encoding and the bytes put on the wire, so the driver can record the served sizes and see
// which loads were answered by the network and which by the browser's cache (those never
// reach the server).

import (
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type staticEntry struct {
	Path     string  `json:"path"`
	Status   int     `json:"status"`
	Encoding string  `json:"encoding,omitempty"` // "br" or "" (identity)
	Bytes    int64   `json:"bytes"`              // body bytes on the wire
	Start    float64 `json:"start"`
	End      float64 `json:"end"`
}

// statics wraps the static handlers: brotli bodies from brDir, the cache policy, the log.
type statics struct {
	brDir     string
	t0        time.Time
	cacheable atomic.Bool // false: no-store (the warm cells); true: max-age (the cold cells)

	mu  sync.Mutex
	log []staticEntry
}

// unshaped is a link with no rate: a shapedWriter on it only counts status and bytes.
var unshaped link

// acceptsBrotli reports whether an Accept-Encoding header lists br with a non-zero q.
func acceptsBrotli(h string) bool {
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(name) != "br" {
			continue
		}
		params = strings.ReplaceAll(params, " ", "")
		if q, ok := strings.CutPrefix(params, "q="); ok {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// wrap serves h's files, or their brotli copy from brDir when the client accepts br.
func (s *statics) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Since(s.t0)
		cw := &shapedWriter{ResponseWriter: w, l: &unshaped}
		if s.cacheable.Load() {
			// What a CDN sends for versioned assets; revalidation still works through the ETag.
			w.Header().Set("Cache-Control", "public, max-age=86400")
		} else {
			w.Header().Set("Cache-Control", "no-store")
		}
		w.Header().Add("Vary", "Accept-Encoding")
		enc := ""
		if s.brDir != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && acceptsBrotli(r.Header.Get("Accept-Encoding")) {
			if s.serveBrotli(cw, r) {
				enc = "br"
			}
		}
		if enc == "" {
			h.ServeHTTP(cw, r)
		}
		e := staticEntry{Path: r.URL.Path, Status: cw.status, Encoding: enc, Bytes: cw.n, Start: ms(start), End: ms(time.Since(s.t0))}
		s.mu.Lock()
		s.log = append(s.log, e)
		s.mu.Unlock()
	})
}

// serveBrotli answers r with brDir's copy of its path, if there is one.
func (s *statics) serveBrotli(w http.ResponseWriter, r *http.Request) bool {
	p := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(p, "/") {
		return false
	}
	f, err := os.Open(filepath.Join(s.brDir, filepath.FromSlash(p)) + ".br")
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return false
	}
	ct := mime.TypeByExtension(path.Ext(p))
	if strings.HasSuffix(p, ".wasm") {
		ct = "application/wasm" // what lets WebAssembly.compileStreaming take the response
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Encoding", "br")
	h.Set("ETag", `"br-`+strconv.FormatInt(st.Size(), 16)+"-"+strconv.FormatInt(st.ModTime().UnixNano(), 16)+`"`)
	http.ServeContent(w, r, "", st.ModTime(), f)
	return true
}

func (s *statics) take() []staticEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log
	s.log = nil
	if out == nil {
		out = []staticEntry{}
	}
	return out
}
