package deltasession_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// objectLog, when set, gets every object driveWith is asked for.
var objectLog *[]deltasession.Object

// drive runs a session against the local table at root (listing it when list is set, else
// probing as over a CDN) and returns its snapshot.
func drive(t *testing.T, root string, version *int64, list bool) (*deltasession.Snapshot, error) {
	t.Helper()
	snap, _, err := driveRounds(t, root, version, list, false)
	return snap, err
}

// driveRounds is drive that also answers the checkpoint ranges a NeedObjects step carries
// when withReqs is set, and counts the host's rounds (steps answered).
func driveRounds(t *testing.T, root string, version *int64, list, withReqs bool) (*deltasession.Snapshot, int, error) {
	t.Helper()
	return driveWith(t, root, deltasession.Options{Version: version, CanList: list}, withReqs, nil)
}

// driveWith is driveRounds with the session's options; onData, when set, sees each NeedData
// step's requests and the file table, and says whether to answer them.
func driveWith(t *testing.T, root string, o deltasession.Options, withReqs bool, onData func([]scan.FileRange, []string) bool) (*deltasession.Snapshot, int, error) {
	t.Helper()
	s, err := deltasession.New(o)
	if err != nil {
		return nil, 0, err
	}
	pushFiles := func(reqs []scan.FileRange) {
		for _, r := range reqs {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Files()[r.File])))
			if err != nil {
				t.Fatal(err)
			}
			off, n := r.Off, r.Len
			if off < 0 {
				if err := s.SetFileSizeOf(r.File, int64(len(b))); err != nil {
					t.Fatal(err)
				}
				off, n = max(int64(len(b))+off, 0), -off
			}
			if err := s.PushFile(r.File, off, b[off:min(off+n, int64(len(b)))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 10000; i++ {
		st := s.Next()
		switch st.Kind {
		case scan.Done:
			return s.Snapshot(), i, nil
		case scan.Error:
			return nil, i, st.Err
		case scan.NeedObjects:
			if withReqs {
				pushFiles(st.Reqs)
			}
			for _, o := range s.Objects() {
				if objectLog != nil {
					*objectLog = append(*objectLog, o)
				}
				p := filepath.Join(root, filepath.FromSlash(o.Path))
				var b []byte
				found := true
				if o.Kind == "list" {
					ents, err := os.ReadDir(p)
					if err != nil {
						t.Fatal(err)
					}
					var l []deltasession.ListEntry
					for _, e := range ents {
						info, _ := e.Info()
						l = append(l, deltasession.ListEntry{Name: e.Name(), Size: info.Size()})
					}
					b, _ = json.Marshal(l)
				} else if b, err = os.ReadFile(p); errors.Is(err, fs.ErrNotExist) {
					found = false
				} else if err != nil {
					t.Fatal(err)
				}
				if err := s.PushObject(o.Path, b, found); err != nil {
					return nil, i, err
				}
			}
		case scan.NeedData:
			if onData == nil || onData(st.Reqs, s.Files()) {
				pushFiles(st.Reqs)
			}
		default:
			t.Fatalf("step %v", st.Kind)
		}
	}
	t.Fatal("no end")
	return nil, 0, nil
}

// Test_sameAsGoHost reads every table of the Delta test data with the session driven by this
// test and through the Go host (package pqscan's OpenDataset, which hosts the same session
// through internal/drive with its own local listing, reads and checkpoint sources), both by
// listing and by probing, and wants the same files in the same order, or the same refusal.
func Test_sameAsGoHost(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(t), "delta")
	var tables []string
	for _, pat := range []string{"dat/*/delta", "delta-rs/*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		tables = append(tables, m...)
	}
	if len(tables) < 18 {
		t.Fatalf("%d tables under %s", len(tables), dir)
	}
	ctx := context.Background()
	for _, root := range tables {
		for _, list := range []bool{true, false} {
			rel, _ := filepath.Rel(dir, root)
			t.Run(rel, func(t *testing.T) {
				want, werr := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
				got, gerr := drive(t, root, nil, list)
				if errors.Is(werr, delta.ErrMissingFile) && gerr == nil {
					// The Go host checks local files at open; the session leaves a missing
					// data file to its first request (the hosts' fault tests).
					return
				}
				if werr != nil || gerr != nil {
					if werr == nil || gerr == nil || !errors.Is(gerr, pqscan.ErrUnsupportedFeature) != !errors.Is(werr, pqscan.ErrUnsupportedFeature) {
						t.Fatalf("go host: %v; session: %v", werr, gerr)
					}
					t.Logf("refused: %v", gerr)
					return
				}
				defer want.Close()
				wf := want.Files()
				if len(wf) != len(got.Paths) {
					t.Fatalf("go host %d files, session %d", len(wf), len(got.Paths))
				}
				for i, p := range got.Paths {
					if filepath.Join(root, filepath.FromSlash(p)) != wf[i] {
						t.Errorf("file %d: go host %s, session %s", i, wf[i], p)
					}
					if got.Table.Files[i].Size <= 0 {
						t.Errorf("file %s: size %d", p, got.Table.Files[i].Size)
					}
				}
				if len(got.Table.Table) != len(want.Schema().Fields()) {
					t.Errorf("schema: %d fields, go host %d", len(got.Table.Table), len(want.Schema().Fields()))
				}
			})
		}
	}
}

// Test_version reads an older snapshot.
func Test_version(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	v := int64(0)
	old, err := drive(t, root, &v, false)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := drive(t, root, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if old.Version != 0 || latest.Version != 1 || len(old.Paths) >= len(latest.Paths) {
		t.Fatalf("v0: version %d, %d files; latest: version %d, %d files", old.Version, len(old.Paths), latest.Version, len(latest.Paths))
	}
}

// Test_objectsCarryCheckpointReads: a log round that reads a checkpoint and the commits after
// it (the probe after _last_checkpoint) is one NeedObjects step carrying the checkpoint's
// first ranges, so a host that answers them needs one round fewer than one that waits for
// the NeedData step; both get the same snapshot.
func Test_objectsCarryCheckpointReads(t *testing.T) {
	for _, tc := range []struct {
		table  string
		saving int
	}{
		{"delta-rs/simple_table_with_checkpoint", 1},
		{"delta-rs/checkpoint-v2-table", 0}, // its sidecars are named by a JSON checkpoint: read after it
		{"delta-rs/simple_table", 0},        // no checkpoint
	} {
		root := filepath.Join(testcorpus.Dir(t), "delta", filepath.FromSlash(tc.table))
		with, rw, err := driveRounds(t, root, nil, false, true)
		if err != nil {
			t.Fatal(err)
		}
		without, rwo, err := driveRounds(t, root, nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if rwo-rw != tc.saving {
			t.Errorf("%s: %d rounds answering the NeedObjects ranges, %d without; want %d fewer", tc.table, rw, rwo, tc.saving)
		}
		a, _ := json.Marshal(with)
		b, _ := json.Marshal(without)
		if string(a) != string(b) {
			t.Errorf("%s: snapshots differ:\n%s\n%s", tc.table, a, b)
		}
	}
}
