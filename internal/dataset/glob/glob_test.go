package glob

import (
	"path"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_Pattern_Match(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		key     string
		want    bool
	}{
		{name: "star in segment", pattern: "data/*.parquet", key: "data/a.parquet", want: true},
		{name: "star does not cross slash", pattern: "data/*.parquet", key: "data/x/a.parquet", want: false},
		{name: "question mark", pattern: "data/part-?.parquet", key: "data/part-1.parquet", want: true},
		{name: "question mark one char", pattern: "data/part-?.parquet", key: "data/part-10.parquet", want: false},
		{name: "class", pattern: "d/[ab].parquet", key: "d/b.parquet", want: true},
		{name: "negated class", pattern: "d/[^ab].parquet", key: "d/b.parquet", want: false},
		{name: "escape", pattern: `d/\*.parquet`, key: "d/*.parquet", want: true},
		{name: "globstar zero segments", pattern: "data/**/*.parquet", key: "data/a.parquet", want: true},
		{name: "globstar many segments", pattern: "data/**/*.parquet", key: "data/y=1/m=2/a.parquet", want: true},
		{name: "globstar at end", pattern: "data/**", key: "data/y=1/a.parquet", want: true},
		{name: "trailing globstar needs a segment", pattern: "data/**", key: "data", want: false},
		{name: "globstar at start", pattern: "**/a.parquet", key: "x/y/a.parquet", want: true},
		{name: "two globstars", pattern: "**/y=1/**/*.parquet", key: "t/y=1/m=2/d=3/a.parquet", want: true},
		{name: "two globstars miss", pattern: "**/y=2/**/*.parquet", key: "t/y=1/m=2/d=3/a.parquet", want: false},
		{name: "globstar skips hidden dir", pattern: "t/**/*.parquet", key: "t/_delta_log/x.parquet", want: false},
		{name: "star skips hidden file", pattern: "t/*.parquet", key: "t/_tmp.parquet", want: false},
		{name: "star skips dot file", pattern: "t/*", key: "t/.part-0.parquet.crc", want: false},
		{name: "literal hidden segment", pattern: "_staging/*.parquet", key: "_staging/a.parquet", want: true},
		{name: "underscore partition is not hidden", pattern: "t/*/a.parquet", key: "t/_c=1/a.parquet", want: true},
		{name: "hive partition value", pattern: "t/event_date=2024-01-0[1-3]/*.parquet", key: "t/event_date=2024-01-02/p.parquet", want: true},
		{name: "a**b is a star", pattern: "t/a**b", key: "t/axxb", want: true},
		{name: "exact literal", pattern: "t/a.parquet", key: "t/a.parquet", want: true},
		{name: "no partial match", pattern: "t/a", key: "t/a.parquet", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.pattern)
			require.NoError(t, err)
			require.Equal(t, tc.want, p.Match(tc.key))
		})
	}
}

func Test_Compile_errors(t *testing.T) {
	for _, bad := range []string{"", "data/[a", `data/\`, "a/[]b"} {
		_, err := Compile(bad)
		require.ErrorIs(t, err, ErrBadPattern, bad)
	}
}

func Test_Pattern_Prefix(t *testing.T) {
	tests := []struct{ name, pattern, want string }{
		{name: "star mid segment", pattern: "data/2024-*/x.parquet", want: "data/2024-"},
		{name: "globstar", pattern: "data/**/*.parquet", want: "data/"},
		{name: "no meta", pattern: "data/x.parquet", want: "data/x.parquet"},
		{name: "leading meta", pattern: "*.parquet", want: ""},
		{name: "escape stops the prefix", pattern: `a\*b`, want: "a"},
		{name: "class", pattern: "d/[ab]", want: "d/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.pattern)
			require.NoError(t, err)
			require.Equal(t, tc.want, p.Prefix())
		})
	}
}

func Test_Folder(t *testing.T) {
	keys := []string{
		"tbl/",
		"tbl/_delta_log/00000000000000000000.json",
		"tbl/_SUCCESS",
		"tbl/.part-0.parquet.crc",
		"tbl/part-0.parquet",
		"tbl/year=2024/part-1.parquet",
		"tbl/year=2024/_temporary/0/part-2.parquet",
		"tbl/year=2024/part-3.parquet._COPYING_",
		"tbl/_c=1/part-4.parquet",
		"tbl/notes.txt",
		"tblx/part-5.parquet",
		"tbl/year=2024/",
	}
	s := Folder("tbl")
	require.Equal(t, "tbl/", s.Prefix())
	require.Equal(t, []string{"tbl/part-0.parquet", "tbl/year=2024/part-1.parquet", "tbl/_c=1/part-4.parquet"}, s.Filter(keys))
	require.True(t, Folder("").Keep("a.parquet"))

	g, err := Glob("tbl/**/*.parquet")
	require.NoError(t, err)
	require.Equal(t, "tbl/", g.Prefix())
	require.Equal(t, []string{"tbl/part-0.parquet", "tbl/year=2024/part-1.parquet", "tbl/_c=1/part-4.parquet"}, g.Filter(keys))
	_, err = Glob("[")
	require.ErrorIs(t, err, ErrBadPattern)
}

// FuzzMatch checks that Match agrees with path.Match for patterns without "**" over keys
// without hidden segments and with as many segments as the pattern, that every match has the pattern's Prefix, and that nothing panics.
func FuzzMatch(f *testing.F) {
	f.Add("data/*.parquet", "data/a.parquet")
	f.Add("**/y=1/**/*.parquet", "t/y=1/m=2/a.parquet")
	f.Add("d/[a-c]?/x", "d/b1/x")
	f.Add(`a\*/**`, "a*/b/c")
	f.Fuzz(func(t *testing.T, pattern, key string) {
		if len(pattern) > 256 || len(key) > 256 {
			return
		}
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		got := p.Match(key)
		if got && !strings.HasPrefix(key, p.Prefix()) {
			t.Fatalf("%q matches %q but lacks prefix %q", pattern, key, p.Prefix())
		}
		hidden := false
		for _, s := range strings.Split(key, "/") {
			hidden = hidden || Hidden(s)
		}
		// path.Match lets a class match '/' ("[^0]" matches "/"); here classes stay inside a
		// segment, so compare only where pattern and key have the same segment count.
		if strings.Contains(pattern, "**") || hidden || strings.Count(pattern, "/") != strings.Count(key, "/") {
			return
		}
		want, _ := path.Match(pattern, key)
		if got != want {
			t.Fatalf("Match(%q, %q) = %v, path.Match says %v", pattern, key, got, want)
		}
	})
}
