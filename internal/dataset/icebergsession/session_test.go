package icebergsession_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// drive runs a session on the local table at root, answering from its files; rounds counts
// the NeedObjects steps. A delete file missing or shorter than a range is an error.
func drive(t *testing.T, root string, o icebergsession.Options) (snap *deltasession.Snapshot, rounds int, err error) {
	t.Helper()
	s, err := icebergsession.New(o)
	require.NoError(t, err)
	for {
		st := s.Next()
		switch st.Kind {
		case scan.Done:
			return s.Snapshot(), rounds, nil
		case scan.Error:
			return nil, rounds, st.Err
		case scan.NeedObjects:
			rounds++
			for _, ob := range s.Objects() {
				local := localOf(root, ob.Path)
				var b []byte
				var err error
				if ob.Kind == "list" {
					var ents []deltasession.ListEntry
					des, derr := os.ReadDir(local)
					for _, d := range des {
						ents = append(ents, deltasession.ListEntry{Name: d.Name()})
					}
					b, err = json.Marshal(ents)
					if derr != nil {
						err = derr
					}
				} else {
					b, err = os.ReadFile(local)
				}
				found := err == nil
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
				require.NoError(t, s.PushObject(ob.Path, b, found))
			}
		case scan.NeedData:
			files := s.Files()
			for _, r := range st.Reqs {
				b, err := os.ReadFile(localOf(root, files[r.File]))
				if err != nil {
					return nil, rounds, err
				}
				if r.Off+r.Len > int64(len(b)) {
					return nil, rounds, fmt.Errorf("%s ends at %d", files[r.File], len(b))
				}
				require.NoError(t, s.PushFile(r.File, r.Off, b[r.Off:r.Off+r.Len]))
			}
		default:
			t.Fatalf("step %v", st.Kind)
		}
	}
}

// localOf is where drive reads path p: a file:// URL's path (a path map's base), else p
// below root.
func localOf(root, p string) string {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		return filepath.FromSlash(pathenc.Unescape(rest))
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// Test_session_corpus: on every test table, listed or not (then by the version hint, or the
// metadata file named), the session gives the current snapshot's data files, each with its
// size and its rows once its deletes are applied, or refuses the deletes it does not apply
// yet, naming the delete file.
func Test_session_corpus(t *testing.T) {
	for _, row := range testcorpus.IcebergTables(t) {
		name := row["name"]
		root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", name, row["table_root"])
		hasHint := row["version_hint"] != "none"
		for _, o := range []icebergsession.Options{{CanList: true}, {}, {Metadata: "metadata/" + row["metadata_file"]}} {
			if o.Metadata == "" && !o.CanList && !hasHint {
				_, _, err := drive(t, root, o)
				require.ErrorIs(t, err, iceberg.ErrNotATable, name)
				continue
			}
			snap, rounds, err := drive(t, root, o)
			deletes := !strings.Contains(row["current_snapshot_files"], "pos_delete_files=0; eq_delete_files=0; dv_entries=0")
			if err != nil {
				require.True(t, deletes, name, err)
				require.ErrorIs(t, err, iceberg.ErrUnsupportedFeature, name)
				require.ErrorContains(t, err, "delete", name)
				t.Logf("%s: refused: %v", name, err)
				continue
			}
			require.True(t, rounds <= 4, name, rounds)
			var want int
			for _, kv := range strings.Split(row["current_snapshot_files"], "; ") {
				if n, ok := strings.CutPrefix(kv, "data="); ok {
					want, _ = strconv.Atoi(n)
				}
			}
			require.Equal(t, want, len(snap.Paths), name)
			var rows int64
			for _, f := range snap.Table.Files {
				rows += f.Rows
			}
			require.Equal(t, row["rows_current"], strconv.FormatInt(rows, 10), name)
			for i, p := range snap.Paths {
				st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
				require.NoError(t, err, name)
				require.Equal(t, st.Size(), snap.Table.Files[i].Size, name)
			}
		}
	}
}

// Test_session_errors: what the session says when the table is not there or lies.
func Test_session_errors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		o     icebergsession.Options
		err   error
	}{
		{name: "empty folder", o: icebergsession.Options{CanList: true}, err: iceberg.ErrNotATable},
		{name: "hint to nothing", files: map[string]string{"metadata/version-hint.text": "3"}, err: iceberg.ErrNotATable},
		{name: "metadata named is missing", o: icebergsession.Options{Metadata: "metadata/v1.metadata.json"}, err: iceberg.ErrMissingFile},
		{name: "manifest list missing", files: map[string]string{"metadata/v1.metadata.json": `{"format-version":2,"location":"s3://b/t","schemas":[{"schema-id":0,"fields":[]}],
			"current-snapshot-id":1,"snapshots":[{"snapshot-id":1,"manifest-list":"s3://b/t/metadata/snap.avro"}]}`}, o: icebergsession.Options{CanList: true}, err: iceberg.ErrMissingFile},
		{name: "manifest list outside the table", files: map[string]string{"metadata/v1.metadata.json": `{"format-version":2,"location":"s3://b/t","schemas":[{"schema-id":0,"fields":[]}],
			"current-snapshot-id":1,"snapshots":[{"snapshot-id":1,"manifest-list":"s3://b/other/snap.avro"}]}`}, o: icebergsession.Options{CanList: true}, err: iceberg.ErrOutsideTable},
		{name: "snapshot asked for is not there", files: map[string]string{"metadata/v1.metadata.json": `{"format-version":2,"location":"s3://b/t","schemas":[{"schema-id":0,"fields":[]}]}`},
			o: icebergsession.Options{CanList: true, SnapshotID: new(int64)}, err: iceberg.ErrSnapshotNotFound},
		{name: "a time before the first snapshot", files: map[string]string{"metadata/v1.metadata.json": `{"format-version":2,"location":"s3://b/t","schemas":[{"schema-id":0,"fields":[]}],
			"current-snapshot-id":1,"snapshots":[{"snapshot-id":1,"timestamp-ms":1000,"manifest-list":"s3://b/t/metadata/snap.avro"}]}`},
			o: icebergsession.Options{CanList: true, AsOf: new(int64(999))}, err: iceberg.ErrSnapshotNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tc.files {
				full := filepath.Join(root, filepath.FromSlash(p))
				require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
				require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
			}
			_, _, err := drive(t, root, tc.o)
			require.ErrorIs(t, err, tc.err)
		})
	}
}

// Test_session_options: a snapshot id and a time together are refused at New.
func Test_session_options(t *testing.T) {
	_, err := icebergsession.New(icebergsession.Options{SnapshotID: new(int64), AsOf: new(int64)})
	require.ErrorIs(t, err, icebergsession.ErrOptions)
}

// Test_session_empty: a table never written reads as its schema and no files, in one round
// after the metadata.
func Test_session_empty(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "metadata"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "metadata", "v1.metadata.json"), []byte(`{"format-version":1,"location":"/t",
		"schema":{"schema-id":0,"fields":[{"id":1,"name":"a","required":false,"type":"long"}]},"current-snapshot-id":-1}`), 0o644))
	snap, rounds, err := drive(t, root, icebergsession.Options{CanList: true})
	require.NoError(t, err)
	require.Equal(t, 2, rounds)
	require.Equal(t, 0, len(snap.Table.Files))
	require.Equal(t, "a", snap.Table.Table[0].Name)
}

// Test_session_protocol: answers not asked for and Next with answers missing are errors.
func Test_session_protocol(t *testing.T) {
	s, err := icebergsession.New(icebergsession.Options{})
	require.NoError(t, err)
	require.Equal(t, scan.NeedObjects, s.Next().Kind)
	require.ErrorIs(t, s.PushObject("metadata/other", nil, false), icebergsession.ErrProtocol)
	require.Equal(t, scan.Error, s.Next().Kind)
	require.ErrorIs(t, s.PushFile(0, 0, nil), icebergsession.ErrProtocol)
}

// Test_session_pushCopies: an answer's bytes are copied, since a host may reuse its buffer
// for the next answer of the same round (the wasm host does).
func Test_session_pushCopies(t *testing.T) {
	s, err := icebergsession.New(icebergsession.Options{CanList: true})
	require.NoError(t, err)
	require.Equal(t, scan.NeedObjects, s.Next().Kind)
	buf := []byte(`[{"name":"v1.metadata.json"}]`)
	require.NoError(t, s.PushObject("metadata/", buf, true))
	copy(buf, "garbage garbage garbage garbage")
	for _, o := range s.Objects() {
		require.NoError(t, s.PushObject(o.Path, nil, false))
	}
	st := s.Next()
	require.Equal(t, scan.NeedObjects, st.Kind, st.Err)
	require.Equal(t, "metadata/v1.metadata.json", s.Objects()[0].Path)
}

// Test_session_listOnly: with ListOnly the session ends after the manifest list (one round
// fewer) with the schema and no files, naming the metadata file it read; a session given that
// file and a Where reads only the manifests and files the predicate may match.
func Test_session_listOnly(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "lithium__partition_evolution")
	all, rounds, err := drive(t, root, icebergsession.Options{CanList: true})
	require.NoError(t, err)
	lo, loRounds, err := drive(t, root, icebergsession.Options{CanList: true, ListOnly: true})
	require.NoError(t, err)
	require.Equal(t, rounds-1, loRounds)
	require.Equal(t, 0, len(lo.Table.Files))
	require.Equal(t, all.Table.Table, lo.Table.Table)
	require.Equal(t, all.Metadata, lo.Metadata)
	require.True(t, strings.HasPrefix(lo.Metadata, "metadata/"), lo.Metadata)

	one, oneRounds, err := drive(t, root, icebergsession.Options{Metadata: lo.Metadata, Where: "c1 = 3"})
	require.NoError(t, err)
	require.Equal(t, 3, oneRounds) // the metadata file, the manifest list, one manifest
	require.Equal(t, 1, len(one.Table.Files))
	require.Equal(t, len(one.Paths), len(one.Partitions))
}
