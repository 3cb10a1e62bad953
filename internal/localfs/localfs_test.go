package localfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// layout makes a tree under a temporary root: each name ending in '/' is a directory, one
// containing "->" a symbolic link (name -> target, the target as written), any other a file
// holding its own name.
func layout(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range names {
		if name, target, ok := strings.Cut(n, " -> "); ok {
			require.NoError(t, os.Symlink(filepath.FromSlash(target), filepath.Join(root, filepath.FromSlash(name))))
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(n), 0o644))
	}
	return root
}

// walked returns the files Walk gives, relative to root and slash-separated.
func walked(t *testing.T, root string) ([]string, error) {
	t.Helper()
	var out []string
	err := Walk(root, func(p string) error {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

func Test_Walk(t *testing.T) {
	tests := []struct {
		name   string
		layout []string
		walk   string // below the temporary root
		want   []string
	}{
		{name: "plain tree",
			layout: []string{"t/a=1/x.parquet", "t/a=2/y.parquet", "t/z.parquet"},
			walk:   "t", want: []string{"t/a=1/x.parquet", "t/a=2/y.parquet", "t/z.parquet"}},
		{name: "partition directories linked from elsewhere keep the link's name",
			layout: []string{"store/one/x.parquet", "store/two/y.parquet", "t/", "t/a=1 -> ../store/one", "t/a=2 -> ../store/two"},
			walk:   "t", want: []string{"t/a=1/x.parquet", "t/a=2/y.parquet"}},
		{name: "a linked file",
			layout: []string{"store/x.parquet", "t/a=1/", "t/a=1/x.parquet -> ../../store/x.parquet"},
			walk:   "t", want: []string{"t/a=1/x.parquet"}},
		{name: "the root itself a link",
			layout: []string{"store/a=1/x.parquet", "t -> store"},
			walk:   "t", want: []string{"t/a=1/x.parquet"}},
		{name: "a link to an ancestor is not followed",
			layout: []string{"t/a=1/x.parquet", "t/a=1/up -> ..", "t/a=1/root -> ../../t"},
			walk:   "t", want: []string{"t/a=1/x.parquet"}},
		{name: "a link to itself as a directory is not followed",
			layout: []string{"t/a=1/x.parquet", "t/a=1/self -> ."},
			walk:   "t", want: []string{"t/a=1/x.parquet"}},
		{name: "two directories linking each other stop at the first repeat",
			layout: []string{"t/a/x.parquet", "t/b/y.parquet", "t/a/b -> ../b", "t/b/a -> ../a"},
			walk:   "t", want: []string{"t/a/b/y.parquet", "t/a/x.parquet", "t/b/a/x.parquet", "t/b/y.parquet"}},
		{name: "two links to one directory are both followed",
			layout: []string{"store/x.parquet", "t/", "t/a=1 -> ../store", "t/a=2 -> ../store"},
			walk:   "t", want: []string{"t/a=1/x.parquet", "t/a=2/x.parquet"}},
		{name: "broken links are left out",
			layout: []string{"t/a=1/x.parquet", "t/a=1/gone.parquet -> nowhere.parquet", "t/a=2 -> ../nowhere", "t/l1 -> l2", "t/l2 -> l1"},
			walk:   "t", want: []string{"t/a=1/x.parquet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := layout(t, tc.layout...)
			got, err := walked(t, filepath.Join(root, tc.walk))
			require.NoError(t, err)
			for i := range got {
				got[i] = tc.walk + "/" + got[i]
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_WalkErrors(t *testing.T) {
	root := layout(t, "f.parquet")
	_, err := walked(t, filepath.Join(root, "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = walked(t, filepath.Join(root, "f.parquet"))
	require.ErrorContains(t, err, "not a directory")
}

// Test_ReadDir: a linked file's size is its target's (the Delta log listing reports it).
func Test_ReadDir(t *testing.T) {
	root := layout(t, "store/00000.json", "log/", "log/00000.json -> ../store/00000.json", "log/sub/", "log/gone.json -> nowhere")
	ents, err := ReadDir(filepath.Join(root, "log"))
	require.NoError(t, err)
	require.Equal(t, 2, len(ents))
	require.Equal(t, "00000.json", ents[0].Name)
	require.Equal(t, false, ents[0].Dir)
	info, err := ents[0].Info()
	require.NoError(t, err)
	require.Equal(t, int64(len("store/00000.json")), info.Size())
	require.Equal(t, "sub", ents[1].Name)
	require.Equal(t, true, ents[1].Dir)
}

// Test_Walk_tooManyDirs: a chain of folders each linking twice to the next doubles the tree at
// every step (no link is a cycle); the walk stops at MaxDirs with ErrTooManyDirs instead of
// walking 2^n directories.
func Test_Walk_tooManyDirs(t *testing.T) {
	old := MaxDirs
	MaxDirs = 1000
	t.Cleanup(func() { MaxDirs = old })
	root := t.TempDir()
	const depth = 20
	for i := 0; i < depth; i++ {
		require.NoError(t, os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755))
	}
	for i := 0; i+1 < depth; i++ {
		for _, name := range []string{"a", "b"} {
			require.NoError(t, os.Symlink(filepath.Join(root, fmt.Sprintf("d%d", i+1)), filepath.Join(root, fmt.Sprintf("d%d", i), name)))
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("d%d", depth-1), "x.parquet"), []byte("x"), 0o644))
	files := 0
	err := Walk(filepath.Join(root, "d0"), func(string) error { files++; return nil })
	require.ErrorIs(t, err, ErrTooManyDirs)
	require.True(t, files < 1000, "files listed before the bound", files)
	// A tree within the bound walks whole: 2^4 paths to x.parquet from d15.
	files = 0
	require.NoError(t, Walk(filepath.Join(root, fmt.Sprintf("d%d", depth-5)), func(string) error { files++; return nil }))
	require.Equal(t, 16, files)
}
