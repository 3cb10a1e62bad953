package faultserver

import (
	"context"
	"net/http"
	"time"
)

// countingWriter counts body bytes per path, applies the bandwidth cap and the header rewrites
// of some modes.
type countingWriter struct {
	http.ResponseWriter
	s    *Server
	path string
	bps  int64

	dropContentRange bool
	noAcceptRanges   bool
	wroteHeader      bool
}

func (w *countingWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		if w.dropContentRange {
			w.Header().Del("Content-Range")
		}
		if w.noAcceptRanges {
			w.Header().Set("Accept-Ranges", "none")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.bps <= 0 {
		// Counted before the write, corrected after it: a client that has read the bytes
		// then finds them in the counters (a test may check them as soon as its read ends).
		w.s.addBytes(w.path, int64(len(p)))
		n, err := w.ResponseWriter.Write(p)
		w.s.addBytes(w.path, int64(n-len(p)))
		return n, err
	}
	// Write in chunks of 1/20 s worth of bytes, sleeping between them.
	chunk := max(int(w.bps/20), 1)
	total := 0
	for len(p) > 0 {
		c := min(chunk, len(p))
		w.s.addBytes(w.path, int64(c)) // before the write, as above
		n, err := w.ResponseWriter.Write(p[:c])
		total += n
		w.s.addBytes(w.path, int64(n-c))
		if err != nil {
			return total, err
		}
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		p = p[c:]
		w.s.pause(context.Background(), time.Duration(int64(c)*int64(time.Second)/w.bps)) // not cut short, like time.Sleep
	}
	return total, nil
}

// Flush passes through so that ServeContent streaming still works.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
