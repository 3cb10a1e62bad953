package pathenc

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_Escape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "unreserved", in: "abc-_.~09", want: "abc-_.~09"},
		{name: "slash and space", in: "a/b c", want: "a%2Fb%20c"},
		{name: "plus and equals", in: "k=v+w", want: "k%3Dv%2Bw"},
		{name: "utf8", in: "😈", want: "%F0%9F%98%88"},
		{name: "empty", in: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Escape(tc.in))
			require.Equal(t, tc.in, Unescape(Escape(tc.in)))
		})
	}
	require.Equal(t, "a/b%20c/d", EscapePath("a/b c/d"))
}

func Test_Unescape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "none", in: "abc", want: "abc"},
		{name: "once only", in: "%252F", want: "%2F"},
		{name: "lower hex", in: "%2f", want: "/"},
		{name: "malformed kept", in: "100%zz", want: "100%zz"},
		{name: "trailing percent", in: "a%", want: "a%"},
		{name: "short escape", in: "a%2", want: "a%2"},
		{name: "plus stays", in: "a+b", want: "a+b"},
		{name: "at end", in: "a%20", want: "a "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Unescape(tc.in))
		})
	}
}

func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"letter=%252F%252520%2525f", "a%zz", "%", "x=%F0%9F%98%88"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := Unescape(Escape(s)); got != s {
			t.Fatalf("round trip %q -> %q", s, got)
		}
		_ = Unescape(s)
	})
}

func Test_EscapeComponent(t *testing.T) {
	for _, c := range []struct {
		in     string
		keepEq bool
		want   string
	}{
		{"a=1", true, "a=1"},
		{"a=1", false, "a%3D1"},
		{"é+x(1)!'*~ /", true, "%C3%A9%2Bx(1)!'*~%20%2F"},
	} {
		if got := EscapeComponent(c.in, c.keepEq); got != c.want {
			t.Errorf("EscapeComponent(%q, %v) = %q, want %q", c.in, c.keepEq, got, c.want)
		}
	}
}
