package scope

import (
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
)

// FuzzCheck: whatever a table names, a location the check accepts resolves inside the scope
// by the most permissive reading a server may give it: the path decoded until it no longer
// changes, '\' as a separator, dot segments resolved; the host and port the client dials.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"x.parquet", "../x", "%2e%2e/x", "a%2F..%2F..%2Fx", `a\..\..\x`, "%252e%252e/x",
		"http://h/t/x", "http://h:80/t/../x", "http://H/t/x", "http://u@h/t/x", "http://h@evil/t/x", "//evil/x",
		"file:///tmp/x", "a/./b/../../..", "%25252e%25252e", "?list-type=2", "#../x"} {
		f.Add(s)
	}
	sc := Scope{}.Add(Named(Loc{Origin: "http://h", Path: "/t/"}))
	f.Fuzz(func(t *testing.T, ref string) {
		for _, raw := range []string{"http://h/t/" + ref, ref} {
			if sc.CheckURL(raw, "fuzz") != nil {
				continue
			}
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatalf("%q accepted but does not parse: %v", raw, err)
			}
			if u.Scheme != "http" || !strings.EqualFold(u.Hostname(), "h") || (u.Port() != "" && u.Port() != "80") || u.User != nil {
				t.Fatalf("%q accepted but dials %s://%s (user %v)", raw, u.Scheme, u.Host, u.User)
			}
			p := u.EscapedPath()
			for range 16 {
				d := pathenc.Unescape(p)
				if d == p {
					break
				}
				p = d
			}
			p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
			if p != "/t" && !strings.HasPrefix(p, "/t/") {
				t.Fatalf("%q accepted but resolves to %s", raw, p)
			}
		}
	})
}
