package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/httprange/retry"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
)

// attemptServer answers the n-th request (1-based) with handle and records the requests'
// If-Match headers.
type attemptServer struct {
	mu       sync.Mutex
	n        int
	ifMatch  []string
	handle   func(w http.ResponseWriter, n int)
	finished bool
}

func (s *attemptServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.ifMatch = append(s.ifMatch, r.Header.Get("If-Match"))
	s.mu.Unlock()
	s.handle(w, n)
}

// cutBody announces the whole body but sends half of it, then drops the connection.
func cutBody(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body[:len(body)/2])
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

func Test_HTTPGet(t *testing.T) {
	const body = `{"commitInfo":{}}` + "\n"
	ok := func(etag string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("ETag", etag)
			io.WriteString(w, body)
		}
	}
	status := func(code int, retryAfter, msg string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(code)
			io.WriteString(w, msg)
		}
	}
	tests := []struct {
		name         string
		answers      []func(http.ResponseWriter) // per attempt; the last repeats
		wantErr      error
		wantContains string
		wantRequests int
		wantWaits    []time.Duration // exact waits (Retry-After); nil: only their count is checked
		wantIfMatch  []string
	}{
		{name: "ok", answers: []func(http.ResponseWriter){ok(`"a"`)}, wantRequests: 1},
		{name: "503 retried", answers: []func(http.ResponseWriter){status(503, "", "busy"), ok(`"a"`)}, wantRequests: 2},
		{name: "429 Retry-After 0", answers: []func(http.ResponseWriter){status(429, "0", ""), ok(`"a"`)}, wantRequests: 2, wantWaits: []time.Duration{0}},
		{name: "429 Retry-After 1", answers: []func(http.ResponseWriter){status(429, "1", ""), ok(`"a"`)}, wantRequests: 2, wantWaits: []time.Duration{time.Second}},
		{name: "503 every time", answers: []func(http.ResponseWriter){status(503, "0", "<Error><Code>SlowDown</Code></Error>")},
			wantErr: ErrStatus, wantContains: "HTTP 503 Service Unavailable: <Error><Code>SlowDown</Code></Error>", wantRequests: 3},
		{name: "404 not retried", answers: []func(http.ResponseWriter){status(404, "", "")}, wantErr: ErrNotFound, wantRequests: 1},
		{name: "403 not retried", answers: []func(http.ResponseWriter){status(403, "", "<Error><Code>AccessDenied</Code></Error>")},
			wantErr: ErrStatus, wantContains: "AccessDenied", wantRequests: 1},
		{name: "cut body retried, same version", answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.Header().Set("ETag", `"a"`); cutBody(w, body) }, ok(`"a"`)},
			wantRequests: 2, wantIfMatch: []string{"", `"a"`}},
		{name: "changed between attempts", answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.Header().Set("ETag", `"a"`); cutBody(w, body) }, ok(`"b"`)},
			wantErr: ErrChanged, wantContains: `ETag "a" → "b"`, wantRequests: 2},
		{name: "412 to If-Match", answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.Header().Set("ETag", `"a"`); cutBody(w, body) }, status(412, "", "")},
			wantErr: ErrChanged, wantContains: "412", wantRequests: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &attemptServer{handle: func(w http.ResponseWriter, n int) {
				tc.answers[min(n, len(tc.answers))-1](w)
			}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			rec := &testclock.Recorder{}
			g := NewHTTP(srv.URL+"/", Options{Retry: retry.Policy{MaxRetries: 2, Sleep: rec.Sleep}})
			got, err := g.Get(context.Background(), "t/_delta_log/00000000000000000001.json")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorContains(t, err, "/t/_delta_log/00000000000000000001.json")
				if tc.wantContains != "" {
					require.ErrorContains(t, err, tc.wantContains)
				}
				var re *retry.Error
				require.True(t, !errors.As(err, &re), "retry marker leaked", err)
			} else {
				require.NoError(t, err)
				require.Equal(t, body, string(got))
			}
			require.Equal(t, tc.wantRequests, s.n, "requests")
			require.Equal(t, tc.wantRequests-1, len(rec.Waits()), "waits")
			if tc.wantWaits != nil {
				require.Equal(t, fmt.Sprint(tc.wantWaits), fmt.Sprint(rec.Waits()))
			}
			if tc.wantIfMatch != nil {
				require.Equal(t, tc.wantIfMatch, s.ifMatch)
			}
		})
	}
}

// countingBody is an endless body of 'x' that counts the bytes it serves, in reads of at most
// chunk bytes.
type countingBody struct {
	mu     sync.Mutex
	served int64
	chunk  int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n := min(len(p), b.chunk)
	for i := range p[:n] {
		p[i] = 'x'
	}
	b.mu.Lock()
	b.served += int64(n)
	b.mu.Unlock()
	return n, nil
}

func (b *countingBody) Close() error { return nil }

type bodyTransport struct {
	body          *countingBody
	contentLength int64
}

func (tr bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: tr.body, ContentLength: tr.contentLength, Request: r}, nil
}

// Test_HTTPGetSizeCap: a body over the cap fails with ErrTooLarge having read at most the cap
// and one chunk: nothing at all when Content-Length announces the size, else the reading
// stops at the first chunk past the cap (the body here never ends).
func Test_HTTPGetSizeCap(t *testing.T) {
	const maxSize, chunk = 64 << 10, 4 << 10
	tests := []struct {
		name          string
		contentLength int64
		maxServed     int64
	}{
		{name: "Content-Length over the cap", contentLength: 1 << 30, maxServed: 0},
		{name: "no Content-Length", contentLength: -1, maxServed: maxSize + chunk},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingBody{chunk: chunk}
			g := NewHTTP("http://127.0.0.1/", Options{
				Client:  &http.Client{Transport: bodyTransport{body: body, contentLength: tc.contentLength}},
				MaxSize: maxSize,
			})
			_, err := g.Get(context.Background(), "big.json")
			require.ErrorIs(t, err, ErrTooLarge)
			require.ErrorContains(t, err, "big.json")
			require.ErrorContains(t, err, strconv.Itoa(maxSize))
			require.True(t, body.served <= tc.maxServed, "served", body.served)
			require.True(t, strings.Contains(err.Error(), "larger") || strings.Contains(err.Error(), "Content-Length"), err)
		})
	}
}
