package wazerohost_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_deltaSessionOverWasm: the module's Delta session (pq_open_delta), driven through
// wazerohost from the local file system, gives the Go host's snapshot (the same files in the
// same order, the same schema width) — checkpoints and V2 sidecars read inside the guest —
// or the same refusal; listed and probed.
func Test_deltaSessionOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	dir := filepath.Join(testcorpus.Dir(t), "delta")
	for _, rel := range []string{"dat/multi_partitioned/delta", "dat/basic_append/delta", "delta-rs/simple_table_with_checkpoint",
		"delta-rs/checkpoint-v2-table", "delta-rs/table_with_column_mapping"} {
		root := filepath.Join(dir, filepath.FromSlash(rel))
		for _, list := range []bool{true, false} {
			want, werr := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
			got, carried, gerr := driveWasm(t, h, root, list)
			// The probe after _last_checkpoint reads the checkpoint in the same round as
			// the commits after it: the NeedObjects step carries its ranges.
			require.Equal(t, rel == "delta-rs/simple_table_with_checkpoint" && !list, carried > 0, rel, list)
			if werr != nil || gerr != nil {
				require.True(t, werr != nil && gerr != nil, "%s: go host %v, module %v", rel, werr, gerr)
				require.True(t, errors.Is(werr, pqscan.ErrUnsupportedFeature), "%s: %v", rel, werr)
				require.ErrorContains(t, gerr, "deletionVectors", rel)
				require.ErrorIs(t, gerr, pqscan.ErrUnsupportedFeature, rel) // the module's error kind
				continue
			}
			wf := want.Files()
			require.Equal(t, len(wf), len(got.Paths), rel)
			for i, p := range got.Paths {
				require.Equal(t, wf[i], filepath.Join(root, filepath.FromSlash(p)), rel)
			}
			require.Equal(t, len(want.Schema().Fields()), len(got.Table.Table), rel)
			want.Close()
		}
	}
}

// driveWasm runs the module's session on the local table at root; carried counts the
// NeedObjects steps that carried checkpoint ranges (left for the NeedData step that follows).
func driveWasm(t *testing.T, h *wazerohost.Host, root string, list bool) (snap *deltasession.Snapshot, carried int, err error) {
	s, err := h.StartDelta(context.Background(), deltasession.Options{CanList: list})
	require.NoError(t, err)
	defer s.Close()
	for i := 0; i < 10000; i++ {
		st := s.Next()
		switch st.Kind {
		case scan.Done:
			snap, err := s.Snapshot()
			return snap, carried, err
		case scan.Error:
			return nil, carried, st.Err
		case scan.NeedObjects:
			if len(st.Reqs) > 0 {
				carried++
			}
			objs, err := s.Objects()
			require.NoError(t, err)
			for _, o := range objs {
				p := filepath.Join(root, filepath.FromSlash(o.Path))
				b, err := os.ReadFile(p)
				found := err == nil
				if o.Kind == "list" {
					ents, err := os.ReadDir(p)
					require.NoError(t, err)
					var l []deltasession.ListEntry
					for _, e := range ents {
						info, _ := e.Info()
						l = append(l, deltasession.ListEntry{Name: e.Name(), Size: info.Size()})
					}
					b, _ = json.Marshal(l)
					found = true
				} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
				if err := s.PushObject(o.Path, b, found); err != nil {
					return nil, carried, err
				}
			}
		case scan.NeedData:
			files, err := s.Files()
			require.NoError(t, err)
			for _, r := range st.Reqs {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(files[r.File])))
				require.NoError(t, err)
				off, n := r.Off, r.Len
				if off < 0 {
					require.NoError(t, s.SetFileSizeOf(r.File, int64(len(b))))
					off, n = max(int64(len(b))+off, 0), -off
				}
				require.NoError(t, s.PushFile(r.File, off, b[off:min(off+n, int64(len(b)))]))
			}
		default:
			t.Fatalf("step %v", st.Kind)
		}
	}
	t.Fatal("no end")
	return nil, 0, nil
}
