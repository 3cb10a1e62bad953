package faultserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// serveMode answers one request with the behaviour of mode; attempt is the 1-based count of
// requests for this URL path.
func (s *Server) serveMode(w *countingWriter, r *http.Request, mode, name string, b blob, attempt int) {
	switch mode {
	case "", ModeNoExpose:
		serve(w, r, b)
	case ModeIgnoreRange:
		r.Header.Del("Range")
		w.Header().Set("Accept-Ranges", "none")
		w.noAcceptRanges = true
		serve(w, r, b)
	case ModeWrongRange:
		if first, last, ok := simpleRange(r.Header.Get("Range")); ok {
			if last+1 < b.size {
				first, last = first+1, last+1
			} else if first > 0 {
				first, last = first-1, last-1
			}
			r.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", first, last))
		}
		serve(w, r, b)
	case ModeNoContentRange:
		w.dropContentRange = true
		serve(w, r, b)
	case ModeShortBody:
		rec := record(r, b)
		copyHeader(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Flush() // headers out first: chunked encoding, so the short body ends cleanly
		body := rec.Body.Bytes()
		if rec.Code == http.StatusPartialContent && len(body) > 0 {
			body = body[:len(body)/2]
		}
		w.Write(body)
	case ModeResetOnce, ModeResetAlways:
		if mode == ModeResetAlways || attempt == 1 {
			s.reset(w, r, b)
			return
		}
		serve(w, r, b)
	case Mode503Once, Mode429Once:
		if attempt == 1 {
			s.refuse(w, mode, mode == Mode429Once)
			return
		}
		serve(w, r, b)
	case ModeSlow:
		if !s.pause(r.Context(), s.opt.SlowFirstByte) {
			return
		}
		serve(w, r, b)
	case ModeETagChange:
		if attempt > 1 {
			b = blob{
				ra:      xorReaderAt{b.ra},
				size:    b.size,
				modTime: b.modTime.Add(time.Hour),
				etag:    strings.TrimSuffix(b.etag, `"`) + `-v2"`,
			}
		}
		serve(w, r, b)
	case ModeTruncate:
		if attempt > 1 {
			// Same validators on purpose: only the size reveals the change.
			b.size /= 2
		}
		serve(w, r, b)
	case ModeGzip:
		rec := record(r, b)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(rec.Body.Bytes())
		zw.Close()
		copyHeader(w.Header(), rec.Header())
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
		w.WriteHeader(rec.Code)
		w.Write(gz.Bytes())
	case ModeRedirect:
		s.mu.Lock()
		base := s.opt.RedirectBase
		s.mu.Unlock()
		if base == "" {
			http.Error(w, "faultserver: redirect mode without RedirectBase", http.StatusInternalServerError)
			return
		}
		loc := strings.TrimSuffix(base, "/") + "/" + name
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, loc, http.StatusTemporaryRedirect)
	}
}

// refuse answers 503, or 429 when tooMany, with the Retry-After of Options.RetryAfter.
func (s *Server) refuse(w http.ResponseWriter, mode string, tooMany bool) {
	code := http.StatusServiceUnavailable
	if tooMany {
		code = http.StatusTooManyRequests
	}
	w.Header().Set("Retry-After", strconv.Itoa(s.opt.RetryAfter))
	http.Error(w, "faultserver: "+mode, code)
}

// reset sends the status line, the headers and half the body of the good response, then resets
// the TCP connection (SO_LINGER 0), as a crashed server or a dropped proxy connection would.
func (s *Server) reset(w *countingWriter, r *http.Request, b blob) {
	rec := record(r, b)
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		http.Error(w, "faultserver: reset modes need HTTP/1.1", http.StatusInternalServerError)
		return
	}
	conn, bw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer func() {
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}()
	body := rec.Body.Bytes()
	writeRawHead(bw, rec)
	half := body[:len(body)/2]
	bw.Write(half)
	bw.Flush()
	s.addBytes(w.path, int64(len(half)))
}

func writeRawHead(bw *bufio.ReadWriter, rec *httptest.ResponseRecorder) {
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", rec.Code, http.StatusText(rec.Code))
	h := rec.Header().Clone()
	h.Set("Content-Length", strconv.Itoa(rec.Body.Len()))
	h.Write(bw)
	bw.WriteString("\r\n")
}

// record renders the good response into memory, for the modes that rewrite it.
func record(r *http.Request, b blob) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	serve(rec, r, b)
	return rec
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

// simpleRange parses a single "bytes=a-b" range (the form range clients send).
func simpleRange(h string) (first, last int64, ok bool) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok {
		return 0, 0, false
	}
	a, bs, ok := strings.Cut(spec, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(bs, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return 0, 0, false
	}
	return first, last, true
}

// xorReaderAt is the "other version" of a file for the etag-change mode: same size, every byte
// inverted.
type xorReaderAt struct{ r io.ReaderAt }

func (x xorReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := x.r.ReadAt(p, off)
	for i := range p[:n] {
		p[i] ^= 0xFF
	}
	return n, err
}
