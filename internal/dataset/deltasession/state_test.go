package deltasession_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// logTable makes a table in a temporary folder with the data files of the test table src and
// the first n log files of its _delta_log/ (in name order); grow adds more of them.
func logTable(t *testing.T, src string, n int) (root string, grow func(n int)) {
	t.Helper()
	src = filepath.Join(testcorpus.Dir(t), "delta", src)
	root = t.TempDir()
	names, _ := filepath.Glob(filepath.Join(src, "_delta_log", "0*"))
	names = append(names, filepath.Join(src, "_delta_log", "_last_checkpoint"))
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "_delta_log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	have := 0
	grow = func(n int) {
		for ; have < min(n, len(names)); have++ {
			b, err := os.ReadFile(names[have])
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "_delta_log", filepath.Base(names[have])), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	grow(n)
	return root, grow
}

// open reads the latest snapshot of the table at root with resume, and returns it, its state
// and the objects it asked for (paths, "!" marking a fresh get), and the checkpoint files it read.
func open(t *testing.T, root string, list bool, resume []byte) (*deltasession.Snapshot, []string, []string) {
	t.Helper()
	var objs []deltasession.Object
	objectLog = &objs
	defer func() { objectLog = nil }()
	var read []string
	snap, _, err := driveWith(t, root, deltasession.Options{CanList: list, Resume: resume, KeepState: true}, false, func(reqs []scan.FileRange, files []string) bool {
		for _, r := range reqs {
			read = append(read, files[r.File])
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, o := range objs {
		p := o.Path
		if o.Fresh {
			p = "!" + p
		}
		asked = append(asked, p)
	}
	return snap, asked, read
}

// same fails unless a and b are the same snapshot (their states aside).
func same(t *testing.T, a, b *deltasession.Snapshot) {
	t.Helper()
	x, y := *a, *b
	x.State, y.State, x.Resumed, y.Resumed, x.CommitsRead, y.CommitsRead = nil, nil, false, false, 0, 0
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	if string(ja) != string(jb) {
		t.Fatalf("resumed snapshot differs from a fresh read:\n%s\n%s", ja, jb)
	}
}

func commits(from, to int) []string {
	var out []string
	for v := from; v <= to; v++ {
		out = append(out, fmt.Sprintf("_delta_log/%020d.json", v))
	}
	return out
}

// Test_resume: a table reopened after more commits reads only them (and, without a listing,
// its state's commit again with the probes after it), with or without a checkpoint written
// since, and gives the snapshot a fresh read gives.
func Test_resume(t *testing.T) {
	for _, tc := range []struct {
		table       string
		first, then int // log files before and after
		state, last int // versions
	}{
		{"delta-rs/simple_table", 3, 4, 2, 3},
		{"delta-rs/simple_table", 2, 5, 1, 4},
		{"delta-rs/simple_table_with_checkpoint", 6, 13, 5, 10}, // checkpoint 10 written after the state
	} {
		for _, list := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/%d/list=%v", tc.table, tc.then, list), func(t *testing.T) {
				root, grow := logTable(t, tc.table, tc.first)
				first, _, _ := open(t, root, list, nil)
				if first.Version != int64(tc.state) || len(first.State) == 0 || first.Resumed {
					t.Fatalf("first read: version %d, state %d bytes, resumed %v", first.Version, len(first.State), first.Resumed)
				}
				grow(tc.then)
				fresh, _, _ := open(t, root, list, nil)
				again, asked, read := open(t, root, list, first.State)
				same(t, again, fresh)
				if !again.Resumed || again.Version != int64(tc.last) || again.CommitsRead != int64(tc.last-tc.state) || len(read) > 0 {
					t.Fatalf("reopen: resumed %v, version %d, %d commits after the state, read %v", again.Resumed, again.Version, again.CommitsRead, read)
				}
				want := commits(tc.state+1, tc.last)
				if list {
					want = append([]string{"_delta_log/"}, want...)
				} else {
					want = append([]string{"!" + commits(tc.state, tc.state)[0]}, commits(tc.state+1, tc.state+8)...)
					for v := tc.state + 9; v <= tc.last+1; v += 8 {
						want = append(want, commits(v, v+7)...)
					}
				}
				if !slices.Equal(asked, want) {
					t.Fatalf("asked for %v, want %v", asked, want)
				}
				// The state of a resumed read resumes too.
				if _, asked, _ := open(t, root, list, again.State); len(asked) != map[bool]int{true: 1, false: 9}[list] {
					t.Fatalf("second reopen asked for %v", asked)
				}
			})
		}
	}
}

// Test_resumeReplaced: a state of a table that was since replaced (by a shorter log, or by
// another log as long) or that is not a state at all is ignored, and the log read in full.
func Test_resumeReplaced(t *testing.T) {
	root, _ := logTable(t, "delta-rs/simple_table", 5)
	long, _, _ := open(t, root, true, nil)
	root2, _ := logTable(t, "dat/basic_append/delta", 2)
	other, _, _ := open(t, root2, true, nil)
	garbage := slices.Clone(long.State)
	garbage[len(garbage)/2] ^= 1
	for name, st := range map[string][]byte{
		"backwards": long.State, "replaced": other.State, "garbage": garbage, "truncated": long.State[:len(long.State)-1],
		"other format": append([]byte("PQDELTASTATE\x02"), long.State[13:]...),
	} {
		for _, list := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/list=%v", name, list), func(t *testing.T) {
				dir, _ := logTable(t, "delta-rs/delta-0.8.0", 2)
				if name == "backwards" {
					dir, _ = logTable(t, "delta-rs/simple_table", 3)
				}
				fresh, want, _ := open(t, dir, list, nil)
				got, asked, _ := open(t, dir, list, st)
				same(t, got, fresh)
				if got.Resumed {
					t.Fatal("resumed from a state of another table")
				}
				if name != "backwards" && name != "replaced" && !slices.Equal(asked, want) {
					t.Fatalf("asked for %v, a fresh read %v", asked, want)
				}
				if !reflect.DeepEqual(got.Paths, fresh.Paths) {
					t.Fatalf("files %v, want %v", got.Paths, fresh.Paths)
				}
			})
		}
	}
}
