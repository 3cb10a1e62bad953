package httpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/pqscan/pqscan/internal/httprange"
)

// This file holds the bytes kept in memory: the tail of the size probe and the whole body
// of a server that ignores Range, and the gate that makes the latter download happen once.

// wholeBody is the single download of the whole file after a server answered 200 to a ranged
// request. Other requests that see a 200 meanwhile drop their bodies and wait on done.
type wholeBody struct {
	done chan struct{}
	b    []byte
	err  error
}

// gate lets one request at a time through until rangeKnown; see httpSource.first.
func (s *httpSource) gate(ctx context.Context) (release func(), err error) {
	noop := func() {}
	if s.rangeKnown.Load() {
		return noop, nil
	}
	select {
	case s.first <- struct{}{}:
	case <-ctx.Done():
		return noop, ctx.Err()
	}
	if s.rangeKnown.Load() {
		<-s.first
		return noop, nil
	}
	return func() { <-s.first }, nil
}

// fromMemory serves r from a whole-file body (waiting for one in progress) or the probed tail.
func (s *httpSource) fromMemory(ctx context.Context, r httprange.Range) ([]byte, bool) {
	s.mu.Lock()
	w, tail, tailOff := s.whole, s.tail, s.tailOff
	s.mu.Unlock()
	if w != nil {
		select {
		case <-w.done:
		case <-ctx.Done():
			return nil, false
		}
		if w.err == nil && r.End() <= int64(len(w.b)) {
			return w.b[r.Off:r.End():r.End()], true
		}
	}
	if tail != nil && r.Off >= tailOff && r.End() <= tailOff+int64(len(tail)) {
		return tail[r.Off-tailOff : r.End()-tailOff : r.End()-tailOff], true
	}
	return nil, false
}

// servedWhole reports whether a whole-file body is (or becomes, after waiting) available.
func (s *httpSource) servedWhole(ctx context.Context) bool {
	s.mu.Lock()
	w := s.whole
	s.mu.Unlock()
	if w == nil {
		return false
	}
	select {
	case <-w.done:
		return w.err == nil
	case <-ctx.Done():
		return false
	}
}

// readWhole handles a 200 to a ranged request: the first such response downloads the whole
// body (bounded by MaxWholeBody) and keeps it; concurrent ones drop their bodies and wait.
func (s *httpSource) readWhole(ctx context.Context, resp *http.Response) ([]byte, error) {
	s.mu.Lock()
	w := s.whole
	owner := w == nil
	if owner {
		w = &wholeBody{done: make(chan struct{})}
		s.whole = w
	}
	s.mu.Unlock()
	s.rangeKnown.Store(true)
	if !owner {
		resp.Body.Close()
		select {
		case <-w.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if w.err != nil {
			return nil, retryable(w.err, 0)
		}
		return w.b, nil
	}

	b, err := s.downloadWhole(ctx, resp)
	if err == nil {
		err = s.setSize(int64(len(b)))
	}
	w.b, w.err = b, err
	if err != nil {
		s.mu.Lock()
		s.whole = nil // let a retry try again
		s.mu.Unlock()
	}
	close(w.done)
	return b, err
}

func (s *httpSource) downloadWhole(ctx context.Context, resp *http.Response) ([]byte, error) {
	limit := s.opt.MaxWholeBody
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: the server ignored Range and sent all %d bytes (limit %d, %s)", ErrTooLarge, resp.ContentLength, limit, s.url)
	}
	var b []byte
	if resp.ContentLength >= 0 {
		b = make([]byte, 0, resp.ContentLength)
	}
	n, err := readUpTo(resp.Body, &b, limit+1)
	s.bytes.Add(n)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, retryable(fmt.Errorf("%w: whole-file body after %d bytes (%s): %v", ErrShortBody, n, s.url, err), -1)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: the server ignored Range and sent more than %d bytes (%s)", ErrTooLarge, limit, s.url)
	}
	if resp.ContentLength >= 0 && int64(len(b)) != resp.ContentLength {
		return nil, retryable(fmt.Errorf("%w: got %d of %d bytes of the whole file (%s)", ErrShortBody, len(b), resp.ContentLength, s.url), -1)
	}
	return b, nil
}

// readUpTo appends at most limit bytes of r to *b, returning the number read; io.EOF is not an
// error.
func readUpTo(r io.Reader, b *[]byte, limit int64) (int64, error) {
	var n int64
	buf := *b
	for n < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := min(int64(cap(buf)-len(buf)), limit-n)
		k, err := r.Read(buf[len(buf) : len(buf)+int(room)])
		buf = buf[:len(buf)+k]
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			*b = buf
			return n, err
		}
	}
	*b = buf
	return n, nil
}
