package deltasession

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_underRoot(t *testing.T) {
	tests := []struct {
		name, root, uri, want string
		ok                    bool
	}{
		{name: "file URL under the root", root: "file:///data/t/", uri: "file:///data/t/dv/a.bin", want: "dv/a.bin", ok: true},
		{name: "file:/ form (Spark's)", root: "file:///data/t/", uri: "file:/data/t/a.bin", want: "a.bin", ok: true},
		{name: "percent-decoded", root: "https://h/t/", uri: "https://h/t/x%20y/a.bin", want: "x y/a.bin", ok: true},
		{name: "outside", root: "file:///data/t/", uri: "file:///data/u/a.bin"},
		{name: "a sibling sharing the prefix", root: "file:///data/t/", uri: "file:///data/tt/a.bin"},
		{name: "dot-dot", root: "https://h/t/", uri: "https://h/t/../secret.bin"},
		{name: "another scheme", root: "https://h/t/", uri: "s3://h/t/a.bin"},
		{name: "no root", root: "", uri: "file:///a.bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := underRoot(tc.root, tc.uri)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}
