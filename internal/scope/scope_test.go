package scope

import (
	"errors"
	"net/url"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_ParseURL(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{name: "plain", in: "https://h.example/t/x.parquet", want: "https://h.example/t/x.parquet"},
		{name: "case and default port", in: "HTTPS://H.Example:443/t/", want: "https://h.example/t/"},
		{name: "http default port", in: "http://h:80/a", want: "http://h/a"},
		{name: "other port kept", in: "http://h:8080/a", want: "http://h:8080/a"},
		{name: "leading zeros of a port", in: "http://h:08080/a", want: "http://h:8080/a"},
		{name: "trailing dot of a host", in: "http://h.example./a", want: "http://h.example/a"},
		{name: "IPv6 literal", in: "http://[0:0::1]:9/a", want: "http://[::1]:9/a"},
		{name: "IPv4-mapped IPv6", in: "http://[::ffff:127.0.0.1]/a", want: "http://127.0.0.1/a"},
		{name: "userinfo stays in the origin", in: "http://u:p@h/a", want: "http://u:p@h/a"},
		{name: "userinfo hides the host", in: "http://h.example@evil/a", want: "http://h.example@evil/a"},
		{name: "dot segments", in: "http://h/t/./a/../b", want: "http://h/t/b"},
		{name: "encoded dots", in: "http://h/t/%2e%2E/x", want: "http://h/x"},
		{name: "encoded slash separates", in: "http://h/t/a%2F..%2F..%2Fx", want: "http://h/x"},
		{name: "backslash separates", in: `http://h/t/a\..\..\x`, want: "http://h/x"},
		{name: "encoded backslash separates", in: "http://h/t/a%5C..%5C..%5Cx", want: "http://h/x"},
		{name: "doubled slashes", in: "http://h//t///x", want: "http://h/t/x"},
		{name: "trailing dot segment is a folder", in: "http://h/t/a/.", want: "http://h/t/a/"},
		{name: "query kept, fragment dropped", in: "http://h/t/x?a=1#f", want: "http://h/t/x?a=1"},
		{name: "a Spark escape decoded once stays a name", in: "http://h/t/k=%252F%2520/x", want: "http://h/t/k=%2F%20/x"},
		{name: "climbs above the root", in: "http://h/../x", err: true},
		{name: "double-encoded dots", in: "http://h/t/%252e%252e/x", err: true},
		{name: "double-encoded slash and dots", in: "http://h/t/a%252F..%252F..%252Fx", err: true},
		{name: "triple-encoded dots", in: "http://h/t/%25252e%25252e/x", err: true},
		{name: "another scheme", in: "s3://b/k", err: true},
		{name: "no host", in: "http:///x", err: true},
		{name: "file URL is a local path", in: "file:///tmp/t/x", want: "file:///tmp/t/x"},
		{name: "file URL with localhost", in: "file://localhost/tmp/x", want: "file:///tmp/x"},
		{name: "file URL on another host", in: "file://server/share/x", err: true},
		{name: "file URL climbing", in: "file:///tmp/t/%2e%2e/%2e%2e/etc/passwd", want: "file:///etc/passwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseURL(tc.in)
			if tc.err {
				require.ErrorIs(t, err, ErrLocation)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, l.String())
		})
	}
}

func Test_ParseFile(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{name: "absolute", in: "/tmp/t/x.parquet", want: "/tmp/t/x.parquet"},
		{name: "folder", in: "/tmp/t/", want: "/tmp/t/"},
		{name: "dot dot", in: "/tmp/t/../evil", want: "/tmp/evil"},
		{name: "percent is literal in a path", in: "/tmp/t/%2e%2e/x", want: "/tmp/t/%2e%2e/x"},
		{name: "backslash separates", in: `/tmp/t\..\evil`, want: "/tmp/evil"},
		{name: "relative", in: "t/x", err: true},
		{name: "climbs", in: "/../x", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseFile(tc.in)
			if tc.err {
				require.ErrorIs(t, err, ErrLocation)
				return
			}
			require.NoError(t, err)
			require.Equal(t, fileOrigin, l.Origin)
			require.Equal(t, tc.want, l.Path)
		})
	}
}

func mustURL(t testing.TB, s string) Loc {
	l, err := ParseURL(s)
	require.NoError(t, err)
	return l
}

func Test_Scope_CheckURL(t *testing.T) {
	sc := Scope{}.Add(Named(mustURL(t, "http://h/t/")), Named(mustURL(t, "http://h/one.parquet?sig=1")),
		Entry{Loc: mustURL(t, "http://h/data/part-"), Kind: Prefix}, Named(mustURL(t, "file:///tmp/t/")))
	sc = sc.Add(Allowed(mustURL(t, "http://cdn/shared"))...)
	tests := []struct {
		name, in string
		in2      bool
	}{
		{name: "a file of the table", in: "http://h/t/x.parquet", in2: true},
		{name: "the table root", in: "http://h/t/", in2: true},
		{name: "the root without its slash", in: "http://h/t"},
		{name: "a sibling with the same start", in: "http://h/t2/x"},
		{name: "dot dot out", in: "http://h/t/../evil.parquet"},
		{name: "dot dot in", in: "http://h/t/a/../x.parquet", in2: true},
		{name: "encoded dot dot", in: "http://h/t/%2e%2e/evil.parquet"},
		{name: "another origin", in: "http://evil/t/x.parquet"},
		{name: "another port", in: "http://h:81/t/x.parquet"},
		{name: "another scheme", in: "https://h/t/x.parquet"},
		{name: "userinfo", in: "http://u@h/t/x.parquet"},
		{name: "the named object", in: "http://h/one.parquet?sig=1", in2: true},
		{name: "the named object without its query", in: "http://h/one.parquet"},
		{name: "a query below a folder", in: "http://h/t/x?acl"},
		{name: "within a listing prefix", in: "http://h/data/part-1.parquet", in2: true},
		{name: "beside a listing prefix", in: "http://h/data/other.parquet"},
		{name: "allowed object", in: "http://cdn/shared", in2: true},
		{name: "allowed folder", in: "http://cdn/shared/x", in2: true},
		{name: "not the allowed prefix as a string", in: "http://cdn/shared-secret/x"},
		{name: "a local file", in: "file:///tmp/t/x.parquet", in2: true},
		{name: "a local file outside", in: "file:///tmp/evil.parquet"},
		{name: "unparsable", in: "s3://h/t/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := sc.CheckURL(tc.in, "the test")
			if tc.in2 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrOutside)
			require.ErrorContains(t, err, "the test")
		})
	}
}

func Test_Scope_CheckRequest(t *testing.T) {
	sc := Scope{}.Add(Named(mustURL(t, "http://h/t/")), Named(mustURL(t, "http://h/b/t/")))
	tests := []struct {
		name, in string
		ok       bool
	}{
		{name: "virtual-hosted listing of the table", in: "http://h/?list-type=2&prefix=t%2F", ok: true},
		{name: "its log", in: "http://h/?list-type=2&prefix=t%2F_delta_log%2F&continuation-token=x", ok: true},
		{name: "path-style listing", in: "http://h/b?list-type=2&prefix=t%2F", ok: true},
		{name: "the whole bucket", in: "http://h/?list-type=2&prefix="},
		{name: "a sibling prefix", in: "http://h/?list-type=2&prefix=t"},
		{name: "a climbing prefix", in: "http://h/?list-type=2&prefix=t%2F..%2Fu%2F"},
		{name: "another origin", in: "http://evil/?list-type=2&prefix=t%2F"},
		{name: "an object", in: "http://h/t/x.parquet", ok: true},
		{name: "an object with a query", in: "http://h/t/x.parquet?acl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.in)
			require.NoError(t, err)
			err = sc.CheckRequest(u, "the test")
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.True(t, errors.Is(err, ErrOutside), err)
			}
		})
	}
}
