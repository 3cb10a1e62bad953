package wazerohost_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_icebergOverWasm: every Iceberg test table reads the same rows with the module as the
// engine (its Iceberg session in the guest: pq_open_iceberg, and its table session) as
// natively (deletes applied), which Test_icebergCorpus holds to the corpus's oracle; a table
// the native reader refuses the module refuses too.
func Test_icebergOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	var _ interface {
		StartIcebergSession(context.Context, icebergsession.Options) (deltasession.Driven, error)
	} = h
	read := func(e pqscan.Engine, root string) ([]string, error) {
		ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{Engine: e})
		if err != nil {
			return nil, err
		}
		defer ds.Close()
		r, err := ds.Scan(ctx, pqscan.ScanOptions{})
		require.NoError(t, err)
		defer r.Close()
		return scanRows(t, r), nil
	}
	tables, err := filepath.Glob(filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "*"))
	require.NoError(t, err)
	require.True(t, len(tables) >= 25, len(tables))
	refused := 0
	for _, root := range tables {
		want, werr := read(nil, root)
		got, gerr := read(h, root)
		if werr != nil {
			refused++
			require.ErrorContains(t, gerr, "delete", root)
			require.ErrorContains(t, werr, "delete", root)
			continue
		}
		require.NoError(t, gerr, root)
		require.True(t, len(want) > 0, root)
		require.Equal(t, want, got, root)
	}
	require.Equal(t, 0, refused)
}

// Test_icebergSessionOverWasm: the module's session driven directly lists the snapshot's
// files as the native session does.
func Test_icebergSessionOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__partition_evolution")
	s, err := h.StartIceberg(ctx, icebergsession.Options{Metadata: "metadata/00005-218c3743-5886-48b9-88d6-86c202862e0f.metadata.json"})
	require.NoError(t, err)
	defer s.Close()
	for rounds := 0; ; rounds++ {
		st := s.Next()
		if st.Kind == scan.Done {
			require.Equal(t, 3, rounds) // metadata, manifest list, manifests
			break
		}
		require.Equal(t, scan.NeedObjects, st.Kind, st.Err)
		objs, err := s.Objects()
		require.NoError(t, err)
		for _, o := range objs {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(o.Path)))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			require.NoError(t, s.PushObject(o.Path, b, err == nil))
		}
	}
	snap, err := s.Snapshot()
	require.NoError(t, err)
	require.Equal(t, 7, len(snap.Paths))
	require.Equal(t, int64(240252726469419150), snap.Version)
}
