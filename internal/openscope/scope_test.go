package openscope

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scope"
)

// Test_isHTTP: only http:// and https:// URLs are read over HTTP; a file: URL, a path and
// a look-alike are local (and then refused or opened as paths).
func Test_isHTTP(t *testing.T) {
	for s, want := range map[string]bool{
		"http://h/x":    true,
		"https://h/x/":  true,
		"file:///x":     false,
		"/data/x":       false,
		"httpx://h":     false,
		"data/http://h": false,
	} {
		require.Equal(t, want, IsHTTP(s), s)
	}
}

// Test_locate: a table log's path becomes a location under the root, or an absolute one in
// the scope; what leaves the scope or names a local file for a remote table is refused.
func Test_locate(t *testing.T) {
	local := filepath.ToSlash(t.TempDir()) + "/"
	for _, tc := range []struct {
		name, root, p string
		abs           bool
		want          string
		err           error
	}{
		{name: "relative over HTTP", root: "https://h/t/", p: "a=1/f 1.parquet", want: "https://h/t/a%3D1/f%201.parquet"},
		{name: "relative local", root: local, p: "a=1/f.parquet", want: filepath.FromSlash(local + "a=1/f.parquet")},
		{name: "absolute URL in scope", root: "https://h/t/", p: "https://h/t/x.parquet", abs: true, want: "https://h/t/x.parquet"},
		{name: "absolute URL elsewhere", root: "https://h/t/", p: "https://other/x.parquet", abs: true, err: scope.ErrOutside},
		{name: "climbing out", root: "https://h/t/", p: "../secret.parquet", err: scope.ErrOutside},
		{name: "file URL for a remote table", root: "https://h/t/", p: "file:///etc/passwd", abs: true, err: scope.ErrOutside},
		{name: "local path for a remote table", root: "https://h/t/", p: "/etc/passwd", abs: true, err: scope.ErrOutside},
		{name: "unknown scheme", root: "https://h/t/", p: "s3://b/x.parquet", abs: true, err: delta.ErrUnsupportedFeature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := New([]string{tc.root}, Options{})
			require.NoError(t, err)
			got, err := sc.Locate(tc.root, tc.p, tc.abs, "the test's entry")
			if tc.err != nil {
				require.True(t, errors.Is(err, tc.err), err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
