package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAcceptsBrotli(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want bool
	}{
		{"", false},
		{"gzip, deflate", false},
		{"gzip, deflate, br, zstd", true}, // Chromium's
		{"br", true},
		{"br;q=0", false},
		{"br; q=0.0", false},
		{"br;q=0.5", true},
		{" BR ", false}, // content-codings are case-insensitive in RFC 9110, but no browser sends this; kept strict
		{"brotli", false},
		{"gzip;q=1, br;q=1", true},
	} {
		if got := acceptsBrotli(tc.h); got != tc.want {
			t.Errorf("acceptsBrotli(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func FuzzAcceptsBrotli(f *testing.F) {
	for _, s := range []string{"", "br", "gzip, br;q=0", "br;q=abc", ";;,,", "br;q="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if acceptsBrotli(h) && !strings.Contains(h, "br") {
			t.Fatalf("acceptsBrotli(%q) without br in it", h)
		}
	})
}

// The brotli copy is served with its encoding and the original's content type to clients that
// accept br, the file itself to the others; the cache policy follows the toggle; both logged.
func TestStaticsBrotli(t *testing.T) {
	dir, br := t.TempDir(), t.TempDir()
	raw := []byte("\x00asm\x01\x00\x00\x00 the module")
	enc := []byte("pretend-brotli")
	if err := os.WriteFile(filepath.Join(dir, "m.wasm"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(br, "m.wasm.br"), enc, 0o644); err != nil {
		t.Fatal(err)
	}
	st := &statics{brDir: br, t0: time.Now()}
	srv := httptest.NewServer(st.wrap(http.FileServer(http.Dir(dir))))
	defer srv.Close()

	get := func(ae string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/m.wasm", nil)
		req.Header.Set("Accept-Encoding", ae) // set by hand: Go's transport then does not decode
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, b := get("gzip, deflate, br")
	if string(b) != string(enc) || resp.Header.Get("Content-Encoding") != "br" || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("br client: body %q, Content-Encoding %q, Content-Type %q", b, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q before cache=1, want no-store", cc)
	}
	st.cacheable.Store(true)
	resp, b = get("gzip")
	if string(b) != string(raw) || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip-only client: body %q, Content-Encoding %q", b, resp.Header.Get("Content-Encoding"))
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control %q after cache=1, want max-age", cc)
	}
	lg := st.take()
	if len(lg) != 2 || lg[0].Encoding != "br" || lg[0].Bytes != int64(len(enc)) || lg[1].Encoding != "" || lg[1].Bytes != int64(len(raw)) {
		t.Errorf("log %+v", lg)
	}
	if len(st.take()) != 0 {
		t.Error("take did not clear the log")
	}
}
