package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/delta/dvtest"
	"github.com/pqscan/pqscan/internal/require"
)

// The generated deletion vector tables: delta-rs' table-with-dv-small at version 0 (one file,
// 10 rows, value = position) with commits written here that give its file deletion vectors of
// every storage kind, so the expected rows are known by construction.

const dvSmallFile = "part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet"

// dvTable copies table-with-dv-small's version 0 to a temporary folder with extra files
// (relative path -> bytes); the caller writes the commits after it (writeCommits).
func dvTable(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := copyTable(t, deltaRSDir(t, "table-with-dv-small"), func(name string) bool { return name != "00000000000000000000.json" })
	require.NoError(t, os.Remove(filepath.Join(dir, "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin")))
	for p, b := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), b, 0o644))
	}
	return dir
}

// writeCommits writes commits 1, 2, … of the table at dir, each a list of action lines.
func writeCommits(t *testing.T, dir string, commits [][]string) {
	t.Helper()
	for i, c := range commits {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", i+1)), []byte(strings.Join(c, "\n")+"\n"), 0o644))
	}
}

// dvActions replaces the file's previous logical file (prev: its vector, nil for none) by one
// with vector dv.
func dvActions(prev, dv *delta.DeletionVector) []string {
	desc := func(d *delta.DeletionVector) string {
		if d == nil {
			return ""
		}
		b, _ := json.Marshal(d)
		return `,"deletionVector":` + string(b)
	}
	return []string{
		`{"remove":{"path":"` + dvSmallFile + `","deletionTimestamp":1,"dataChange":true` + desc(prev) + `}}`,
		`{"add":{"path":"` + dvSmallFile + `","partitionValues":{},"size":635,"modificationTime":1,"dataChange":true,` +
			`"stats":"{\"numRecords\":10,\"minValues\":{\"value\":0},\"maxValues\":{\"value\":9},\"nullCount\":{\"value\":0},\"tightBounds\":false}"` + desc(dv) + `}}`,
	}
}

func off(v int32) *int32 { return &v }

// uuidName is the file name and the Z85 text of a "u" vector's UUID.
func uuidName(b byte) (string, string) {
	u := [16]byte{b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	return fmt.Sprintf("deletion_vector_%x-%x-%x-%x-%x.bin", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), dvtest.Z85(u[:])
}

// live is 0..9 without the deleted values, as the table's rows ("value=N").
func live(deleted ...int) []string {
	var out []string
	for v := 0; v < 10; v++ {
		if !slices.Contains(deleted, v) {
			out = append(out, "value="+strconv.Itoa(v))
		}
	}
	return out
}

func Test_deltaDeletionVectors(t *testing.T) {
	inline := dvtest.Bitmap([]uint64{2, 3, 7})
	other, first := dvtest.Bitmap([]uint64{9}), dvtest.Bitmap([]uint64{1, 5})
	relFile, relOffs := dvtest.File(other, first)
	relName, relZ85 := uuidName(1)
	absFile, _ := dvtest.File(dvtest.Bitmap([]uint64{0}))
	aName, aZ85 := uuidName(2)
	bName, bZ85 := uuidName(3)
	aFile, _ := dvtest.File(dvtest.Bitmap([]uint64{1}))
	bFile, _ := dvtest.File(dvtest.Bitmap([]uint64{1, 8}))
	dvA := &delta.DeletionVector{StorageType: "u", PathOrInlineDv: aZ85, Offset: off(1), SizeInBytes: int32(len(aFile) - 9), Cardinality: 1}
	dvB := &delta.DeletionVector{StorageType: "u", PathOrInlineDv: bZ85, Offset: off(1), SizeInBytes: int32(len(bFile) - 9), Cardinality: 2}
	tests := []struct {
		name    string
		files   map[string][]byte
		commits func(dir string) [][]string
		want    []string
	}{
		{name: "inline", want: live(2, 3, 7), commits: func(string) [][]string {
			return [][]string{dvActions(nil, &delta.DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(inline), SizeInBytes: int32(len(inline)), Cardinality: 3})}
		}},
		{name: "relative, with a prefix, the second vector of its file", want: live(1, 5), files: map[string][]byte{"ab/" + relName: relFile},
			commits: func(string) [][]string {
				return [][]string{dvActions(nil, &delta.DeletionVector{StorageType: "u", PathOrInlineDv: "ab" + relZ85, Offset: off(relOffs[1]), SizeInBytes: int32(len(first)), Cardinality: 2})}
			}},
		{name: "absolute, inside the table root", want: live(0), files: map[string][]byte{"dv/abs.bin": absFile},
			commits: func(dir string) [][]string {
				u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/dv/abs.bin"}).String()
				return [][]string{dvActions(nil, &delta.DeletionVector{StorageType: "p", PathOrInlineDv: u, Offset: off(1), SizeInBytes: int32(len(absFile) - 9), Cardinality: 1})}
			}},
		{name: "a vector replaced by a later one", want: live(1, 8), files: map[string][]byte{aName: aFile, bName: bFile},
			commits: func(string) [][]string { return [][]string{dvActions(nil, dvA), dvActions(dvA, dvB)} }},
		{name: "an earlier version, before the vector", want: live(1), files: map[string][]byte{aName: aFile, bName: bFile},
			commits: func(string) [][]string { return [][]string{dvActions(nil, dvA), dvActions(dvA, dvB)} }},
	}
	h := wasmHost(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := dvTable(t, tc.files)
			writeCommits(t, dir, tc.commits(dir))
			// Natively, and in the module (its Delta session fetches, its table session applies).
			for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
				o := pqscan.Options{Engine: e}
				if strings.HasPrefix(tc.name, "an earlier version") {
					v := int64(1)
					o.DeltaVersion = &v
				}
				got, _, err := deltaRowsWith(t, dir, o, pqscan.ScanOptions{})
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
				checkDVQueries(t, dir, o, tc.want)
			}
		})
	}
}

// checkDVQueries checks the other ways to read the table against its rows: a filter, a row
// index, offset and limit, count, min/max and top-k.
func checkDVQueries(t *testing.T, dir string, o pqscan.Options, want []string) {
	t.Helper()
	var vals []int64
	for _, w := range want {
		v, _ := strconv.ParseInt(strings.TrimPrefix(w, "value="), 10, 64)
		vals = append(vals, v)
	}
	got, _, err := deltaRowsWith(t, dir, o, pqscan.ScanOptions{Where: "value >= 5"})
	require.NoError(t, err)
	var wantWhere []string
	for i, v := range vals {
		if v >= 5 {
			wantWhere = append(wantWhere, want[i])
		}
	}
	require.Equal(t, wantWhere, got, "where")
	got, _, err = deltaRowsWith(t, dir, o, pqscan.ScanOptions{RowIndex: "ri", Columns: []string{"ri"}})
	require.NoError(t, err)
	var wantRI []string
	for _, v := range vals {
		wantRI = append(wantRI, "ri="+strconv.FormatInt(v, 10)) // value = physical position
	}
	require.Equal(t, wantRI, got, "row index")
	got, _, err = deltaRowsWith(t, dir, o, pqscan.ScanOptions{Offset: 1, Limit: 3})
	require.NoError(t, err)
	require.Equal(t, want[1:4], got, "offset and limit")
	got, _, err = deltaRowsWith(t, dir, o, pqscan.ScanOptions{OrderBy: "value DESC", Limit: 2})
	require.NoError(t, err)
	require.Equal(t, []string{want[len(want)-1], want[len(want)-2]}, got, "top-k")
	ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, o)
	require.NoError(t, err)
	defer ds.Close()
	n, _, err := ds.Count(context.Background(), pqscan.ScanOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(len(want)), n, "count")
	n, _, err = ds.Count(context.Background(), pqscan.ScanOptions{Where: "value < 5"})
	require.NoError(t, err)
	require.Equal(t, int64(len(want)-len(wantWhere)), n, "count with a filter")
	rec, _, err := ds.MinMax(context.Background(), "value", pqscan.ScanOptions{})
	require.NoError(t, err)
	defer rec.Release()
	require.Equal(t, strconv.FormatInt(vals[0], 10), rec.Column(0).ValueStr(0), "min")
	require.Equal(t, strconv.FormatInt(vals[len(vals)-1], 10), rec.Column(1).ValueStr(0), "max")
}

// Test_deltaDeletionVectorFaults: a vector that cannot be read or does not fit its file is an
// error naming the file, and no row is returned.
func Test_deltaDeletionVectorFaults(t *testing.T) {
	name, z85 := uuidName(4)
	good, _ := dvtest.File(dvtest.Bitmap([]uint64{1, 2}))
	bad := slices.Clone(good)
	bad[len(bad)-1] ^= 1
	past, _ := dvtest.File(dvtest.Bitmap([]uint64{1, 10}))
	dv := func(file []byte) *delta.DeletionVector {
		return &delta.DeletionVector{StorageType: "u", PathOrInlineDv: z85, Offset: off(1), SizeInBytes: int32(len(file) - 9), Cardinality: 2}
	}
	tests := []struct {
		name    string
		files   map[string][]byte
		dv      func(dir string) *delta.DeletionVector
		err     error
		msg     []string
		noStats bool // the add carries no statistics: the vector is checked against the footer
	}{
		{name: "missing file", dv: func(string) *delta.DeletionVector { return dv(good) }, msg: []string{name, dvSmallFile, "no such file"}},
		{name: "short file", files: map[string][]byte{name: good[:len(good)-3]}, dv: func(string) *delta.DeletionVector { return dv(good) },
			msg: []string{name, dvSmallFile}},
		{name: "checksum mismatch", files: map[string][]byte{name: bad}, dv: func(string) *delta.DeletionVector { return dv(bad) },
			err: delta.ErrMalformed, msg: []string{name, dvSmallFile, "checksum"}},
		{name: "a position past the file's rows", files: map[string][]byte{name: past}, dv: func(string) *delta.DeletionVector { return dv(past) },
			err: delta.ErrMalformed, msg: []string{dvSmallFile, "value 10, the bound is 10"}},
		{name: "a position past the file's rows, no numRecords in the log", files: map[string][]byte{name: past}, noStats: true,
			dv: func(string) *delta.DeletionVector { return dv(past) }, msg: []string{dvSmallFile, "row 10 is deleted, and the file has 10 rows"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := dvTable(t, tc.files)
			acts := dvActions(nil, tc.dv(dir))
			if tc.noStats {
				acts[1] = regexp.MustCompile(`"stats":"(?:[^"\\]|\\.)*",`).ReplaceAllString(acts[1], "")
				require.True(t, !strings.Contains(acts[1], "numRecords"), acts[1])
			}
			writeCommits(t, dir, [][]string{acts})
			got, _, err := deltaRowsWith(t, dir, pqscan.Options{}, pqscan.ScanOptions{})
			require.Error(t, err)
			require.Equal(t, 0, len(got))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			}
			for _, m := range tc.msg {
				require.ErrorContains(t, err, m)
			}
		})
	}
}

// Test_deltaAbsoluteVectorScope: an absolute ("p") vector outside the table root is read like
// an absolute data file path: a file: URL of a local table or an http(s) URL, within the
// open's scope (Options.AllowPrefixes), and otherwise refused with ErrOutOfScope naming the
// vector and its data file before any request; a remote table's file: vector is refused.
func Test_deltaAbsoluteVectorScope(t *testing.T) {
	vec, _ := dvtest.File(dvtest.Bitmap([]uint64{0, 4}))
	elsewhere := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "dv.bin"), vec, 0o644))
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(elsewhere) + "/dv.bin"}).String()
	var otherReqs atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherReqs.Add(1)
		http.FileServer(http.Dir(elsewhere)).ServeHTTP(w, r)
	}))
	defer other.Close()
	local := dvTable(t, nil)
	served := httptest.NewServer(http.FileServer(http.Dir(local)))
	defer served.Close()
	h := wasmHost(t)
	tests := []struct {
		name, table, vector string
		allow               []string
		err                 error
		msg                 []string
	}{
		{name: "local table, file: vector in an allowed prefix", table: local, vector: fileURL, allow: []string{elsewhere + "/"}},
		{name: "local table, file: vector not allowed", table: local, vector: fileURL, err: pqscan.ErrOutOfScope,
			msg: []string{"deletion vector", fileURL, dvSmallFile}},
		{name: "local table, http vector allowed", table: local, vector: other.URL + "/dv.bin", allow: []string{other.URL + "/"}},
		{name: "http table, http vector allowed", table: served.URL, vector: other.URL + "/dv.bin", allow: []string{other.URL + "/"}},
		{name: "http table, http vector not allowed", table: served.URL, vector: other.URL + "/dv.bin", err: pqscan.ErrOutOfScope,
			msg: []string{"deletion vector", other.URL + "/dv.bin", dvSmallFile}},
		{name: "http table, file: vector", table: served.URL, vector: fileURL, allow: []string{elsewhere + "/"}, err: pqscan.ErrOutOfScope,
			msg: []string{fileURL, "remote"}},
		{name: "unsupported scheme", table: local, vector: "s3://bucket/dv.bin", err: pqscan.ErrUnsupportedFeature, msg: []string{"s3:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeCommits(t, local, [][]string{dvActions(nil, &delta.DeletionVector{StorageType: "p", PathOrInlineDv: tc.vector,
				Offset: off(1), SizeInBytes: int32(len(vec) - 9), Cardinality: 2})})
			for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
				otherReqs.Store(0)
				got, _, err := deltaRowsWith(t, tc.table, pqscan.Options{Engine: e, AllowPrefixes: tc.allow}, pqscan.ScanOptions{})
				if tc.err == nil {
					require.NoError(t, err)
					require.Equal(t, live(0, 4), got)
					continue
				}
				require.ErrorIs(t, err, tc.err)
				for _, m := range tc.msg {
					require.ErrorContains(t, err, m)
				}
				require.Equal(t, int64(0), otherReqs.Load(), "requests to the vector's origin")
			}
		})
	}
}
