package httpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/retry"
)

// NewHTTP returns a Source for the file at url. See the package documentation for the
// guarantees. The Source is safe for concurrent use; it keeps the validators of the first
// response for its whole life, so use one Source per scan (or per expected file version).
func NewHTTP(url string, opt Options) Source {
	opt.normalize()
	s := &httpSource{url: url, opt: opt, policy: opt.RetryPolicy(), size: -1, first: make(chan struct{}, 1), sem: make(chan struct{}, opt.Concurrency)}
	if opt.FileSize > 0 {
		s.size = opt.FileSize
	}
	if opt.RangeKnown {
		s.rangeKnown.Store(true)
	}
	if opt.ETag != "" {
		s.haveValidators, s.etag = true, opt.ETag
	} else if opt.LastModified != "" {
		s.haveValidators, s.lastMod = true, opt.LastModified
	}
	return s
}

// Validators implements Versioned.
func (s *httpSource) Validators() (etag, lastModified string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.etag, s.lastMod
}

type httpSource struct {
	url    string
	opt    Options
	policy retry.Policy
	// sem caps the requests in flight across all of the Source's Fetch calls: a driver that
	// takes a round as it arrives (scan.Step.AsArrived) fetches the next ranges while the
	// previous Fetch is still running, and Concurrency is a promise about connections.
	sem chan struct{}

	requests, bytes, retries, roundTrips atomic.Int64
	calls                                atomic.Int64 // Fetch and Size calls in progress

	mu             sync.Mutex
	size           int64 // -1 while unknown
	sizeFromServer bool  // size came from a response, not from Options.FileSize
	haveValidators bool
	etag, lastMod  string
	tailOff        int64
	tail           []byte     // bytes kept from the size probe
	whole          *wholeBody // set once a server ignored Range
	probe          *flight    // in-flight size probe

	// Until a 200 or 206 has shown whether the server honours Range, requests go one at a
	// time (first is a one-slot semaphore): if the answer is a 200 with the whole file, the
	// others are served from it instead of downloading the file again in parallel. The
	// engine's first request is a single tail read, so this costs nothing in practice.
	rangeKnown atomic.Bool
	first      chan struct{}
}

// flight is a single in-flight size probe that concurrent callers wait on.
type flight struct {
	done chan struct{}
	err  error
}

// call tracks whether one Fetch/Size call issued a request (for Stats.RoundTrips), and
// whether another call was in progress when it began: its requests then share that call's
// round trip (a round taken as it arrives, a prefetch beside the engine's requests), as the
// JS bridge counts them.
type call struct {
	issued   atomic.Bool
	overlaps bool
}

func (s *httpSource) begin() *call { return &call{overlaps: s.calls.Add(1) > 1} }

func (c *call) finish(s *httpSource) {
	s.calls.Add(-1)
	if c.issued.Load() && !c.overlaps {
		s.roundTrips.Add(1)
	}
}

func (s *httpSource) Stats() Stats {
	return Stats{
		Requests:   s.requests.Load(),
		Bytes:      s.bytes.Load(),
		Retries:    s.retries.Load(),
		RoundTrips: s.roundTrips.Load(),
	}
}

func (s *httpSource) Size(ctx context.Context) (int64, error) {
	c := s.begin()
	defer c.finish(s)
	return s.learnSize(ctx, c, s.opt.TailSize)
}

// learnSize returns the size, probing with a suffix range of max(n, TailSize) bytes when it is
// unknown. Concurrent callers share one probe.
func (s *httpSource) learnSize(ctx context.Context, c *call, n int64) (int64, error) {
	for {
		s.mu.Lock()
		if s.size >= 0 {
			size := s.size
			s.mu.Unlock()
			return size, nil
		}
		if f := s.probe; f != nil {
			s.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			if f.err != nil {
				return 0, f.err
			}
			continue
		}
		f := &flight{done: make(chan struct{})}
		s.probe = f
		s.mu.Unlock()

		f.err = s.retry(ctx, func() error {
			release, err := s.gate(ctx)
			if err != nil {
				return err
			}
			defer release()
			return s.tryProbe(ctx, c, max(n, s.opt.TailSize))
		})
		s.mu.Lock()
		s.probe = nil
		s.mu.Unlock()
		close(f.done)
		if f.err != nil {
			return 0, f.err
		}
	}
}

// tryProbe sends one GET with Range: bytes=-n and learns the size from its Content-Range
// (or from the whole body of a 200).
func (s *httpSource) tryProbe(ctx context.Context, c *call, n int64) error {
	if s.servedWhole(ctx) {
		return nil
	}
	spec := "bytes=-" + strconv.FormatInt(n, 10)
	resp, err := s.do(ctx, c, spec)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		_, err := s.readWhole(ctx, resp)
		return err
	case http.StatusRequestedRangeNotSatisfiable:
		// A suffix range of an empty file is unsatisfiable (RFC 9110 §14.1.2).
		cr, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err == nil && cr.total == 0 {
			return s.setSize(0)
		}
		return fmt.Errorf("%w: %s answered 416 to %s", ErrOutOfRange, s.url, spec)
	}
	// 206
	crs := resp.Header.Get("Content-Range")
	cr, err := parseContentRange(crs)
	if err != nil {
		return fmt.Errorf("%w (for %s of %s)", err, spec, s.url)
	}
	if cr.unsatisfied || cr.total < 0 || cr.last != cr.total-1 || cr.last-cr.first+1 != min(n, cr.total) {
		return fmt.Errorf("%w: server returned Content-Range %q for %s (%s)", ErrBadContentRange, crs, spec, s.url)
	}
	if err := s.setSize(cr.total); err != nil {
		return err
	}
	b, err := s.readBody(ctx, resp, cr.first, cr.last-cr.first+1)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.tailOff, s.tail = cr.first, b
	s.mu.Unlock()
	return nil
}

// setSize records the size learned from a response, or checks it against the known one.
func (s *httpSource) setSize(total int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size < 0 {
		s.size, s.sizeFromServer = total, true
		return nil
	}
	if s.size != total {
		what := "size"
		if !s.sizeFromServer {
			what = "size given in Options.FileSize"
		}
		return fmt.Errorf("%w (%s %d → %d, %s)", ErrFileChanged, what, s.size, total, s.url)
	}
	s.sizeFromServer = true
	return nil
}

func (s *httpSource) Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error {
	c := s.begin()
	defer c.finish(s)

	rs := make([]httprange.Range, 0, len(ranges))
	for _, r := range ranges {
		if r.Off < 0 {
			size, err := s.learnSize(ctx, c, -r.Off)
			if err != nil {
				return err
			}
			off := max(0, size+r.Off)
			r = httprange.Range{Off: off, Len: size - off}
		}
		if r.Len < 0 {
			return fmt.Errorf("%w: %+v", ErrInvalidRange, r)
		}
		s.mu.Lock()
		size := s.size
		s.mu.Unlock()
		if size >= 0 && r.End() > size {
			return fmt.Errorf("%w: [%d, %d) of %d bytes (%s)", ErrOutOfRange, r.Off, r.End(), size, s.url)
		}
		rs = append(rs, r)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg        sync.WaitGroup
		deliverMu sync.Mutex
		failed    bool
		sem       = s.sem
	)
	fail := func(err error) {
		deliverMu.Lock()
		defer deliverMu.Unlock()
		if !failed {
			failed = true
			cancel(err)
		}
	}
	for _, r := range rs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			b, err := s.fetchRange(ctx, c, r)
			if err != nil {
				fail(err)
				return
			}
			deliverMu.Lock()
			if !failed && ctx.Err() == nil {
				err = deliver(r.Off, b)
				if err != nil {
					failed = true
					cancel(err)
				}
			}
			deliverMu.Unlock()
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// fetchRange returns the bytes of r, from memory when possible, else with retried requests.
func (s *httpSource) fetchRange(ctx context.Context, c *call, r httprange.Range) ([]byte, error) {
	if r.Len == 0 {
		return []byte{}, nil
	}
	var out []byte
	err := s.retry(ctx, func() error {
		if b, ok := s.fromMemory(ctx, r); ok {
			out = b
			return nil
		}
		release, err := s.gate(ctx)
		if err != nil {
			return err
		}
		defer release()
		if b, ok := s.fromMemory(ctx, r); ok {
			out = b
			return nil
		}
		out, err = s.tryRange(ctx, c, r)
		return err
	})
	return out, err
}

// tryRange sends one GET for r and validates the answer.
func (s *httpSource) tryRange(ctx context.Context, c *call, r httprange.Range) ([]byte, error) {
	spec := fmt.Sprintf("bytes=%d-%d", r.Off, r.End()-1)
	resp, err := s.do(ctx, c, spec)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		b, err := s.readWhole(ctx, resp)
		if err != nil {
			return nil, err
		}
		if r.End() > int64(len(b)) {
			return nil, fmt.Errorf("%w: [%d, %d) of %d bytes (%s)", ErrOutOfRange, r.Off, r.End(), len(b), s.url)
		}
		return b[r.Off:r.End():r.End()], nil
	case http.StatusRequestedRangeNotSatisfiable:
		if cr, err := parseContentRange(resp.Header.Get("Content-Range")); err == nil && cr.total >= 0 {
			if err := s.setSize(cr.total); err != nil {
				return nil, err
			}
		}
		return nil, fmt.Errorf("%w: %s answered 416 to %s", ErrOutOfRange, s.url, spec)
	}
	crs := resp.Header.Get("Content-Range")
	if crs == "" {
		return nil, fmt.Errorf("%w: server returned no Content-Range for %s (%s)", ErrBadContentRange, spec, s.url)
	}
	cr, err := parseContentRange(crs)
	if err != nil {
		return nil, fmt.Errorf("%w (for %s of %s)", err, spec, s.url)
	}
	if cr.total >= 0 {
		// A size change explains a mismatching range better than "bad Content-Range".
		if err := s.setSize(cr.total); err != nil {
			return nil, err
		}
	}
	if cr.unsatisfied || cr.first != r.Off || cr.last != r.End()-1 {
		return nil, fmt.Errorf("%w: server returned Content-Range %q for %s (%s)", ErrBadContentRange, crs, spec, s.url)
	}
	return s.readBody(ctx, resp, r.Off, r.Len)
}

// do sends one GET with the given Range spec and the validators, and classifies the answer:
// it returns the response for 200, 206 and 416 (after checking encoding and validators) and an
// error (retryable or not) for everything else. The caller closes the body.
func (s *httpSource) do(ctx context.Context, c *call, rangeSpec string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("httpclient: %w", err)
	}
	for k, v := range s.opt.Header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Range", rangeSpec)
	// Setting Accept-Encoding also stops net/http from transparently decompressing.
	req.Header.Set("Accept-Encoding", "identity")
	s.mu.Lock()
	if s.etag != "" && !strings.HasPrefix(s.etag, "W/") {
		req.Header.Set("If-Match", s.etag)
	} else if s.lastMod != "" {
		req.Header.Set("If-Unmodified-Since", s.lastMod)
	}
	s.mu.Unlock()

	c.issued.Store(true)
	s.requests.Add(1)
	resp, err := s.opt.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if retry.IsTransient(err) {
			return nil, retryable(err, -1)
		}
		return nil, fmt.Errorf("httpclient: %w", err)
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		s.rangeKnown.Store(true)
	case http.StatusOK:
		// readWhole sets rangeKnown once s.whole is claimed, so nobody slips past the gate
		// before the whole body is there to wait on.
	case http.StatusRequestedRangeNotSatisfiable:
	case http.StatusPreconditionFailed:
		resp.Body.Close()
		return nil, fmt.Errorf("%w (412 Precondition Failed for %s, %s)", ErrFileChanged, req.Header.Get("If-Match")+req.Header.Get("If-Unmodified-Since"), s.url)
	default:
		resp.Body.Close()
		err := fmt.Errorf("%w %d %s for %s (%s)", ErrStatus, resp.StatusCode, http.StatusText(resp.StatusCode), rangeSpec, s.url)
		return nil, retry.Status(err, resp.StatusCode, resp.Header, nowFunc())
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: Content-Encoding %q for %s (%s); offsets would be wrong", ErrEncoding, ce, rangeSpec, s.url)
	}
	if err := s.checkValidators(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// checkValidators records ETag/Last-Modified of the first response and compares later ones.
// A strong ETag decides alone; Last-Modified is compared only when there is no ETag.
func (s *httpSource) checkValidators(resp *http.Response) error {
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.haveValidators {
		s.haveValidators, s.etag, s.lastMod = true, etag, lm
		return nil
	}
	if s.etag != "" && etag != "" && etag != s.etag {
		return fmt.Errorf("%w (ETag %s → %s, %s)", ErrFileChanged, s.etag, etag, s.url)
	}
	if s.etag == "" && s.lastMod != "" && lm != "" && lm != s.lastMod {
		return fmt.Errorf("%w (Last-Modified %s → %s, %s)", ErrFileChanged, s.lastMod, lm, s.url)
	}
	return nil
}

// readBody reads exactly n bytes of a 206 body for the range starting at off.
func (s *httpSource) readBody(ctx context.Context, resp *http.Response, off, n int64) ([]byte, error) {
	if resp.ContentLength >= 0 && resp.ContentLength < n {
		return nil, retryable(fmt.Errorf("%w: got %d of %d bytes at offset %d (%s): Content-Length %d", ErrShortBody, resp.ContentLength, n, off, s.url, resp.ContentLength), -1)
	}
	if resp.ContentLength > n {
		return nil, fmt.Errorf("%w: Content-Length %d for a %d-byte Content-Range at %d (%s)", ErrBadContentRange, resp.ContentLength, n, off, s.url)
	}
	b := make([]byte, n)
	k, err := io.ReadFull(resp.Body, b)
	s.bytes.Add(int64(k))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, retryable(fmt.Errorf("%w: got %d of %d bytes at offset %d (%s): %v", ErrShortBody, k, n, off, s.url, err), -1)
	}
	return b, nil
}
