package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/avro"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/icebergtest"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Malicious Iceberg tables: the metadata names the manifest list, the manifest list the
// manifests, the manifests the data files, each by a path under the table location that is
// mapped onto the folder the table was opened from. A path outside the location is read as
// written (an absolute URL or file) only when Options.AllowPrefixes covers it; otherwise the
// open fails with ErrOutOfScope, naming the metadata entry, before any request for it leaves.

// icebergScopeTable is the corpus table the cases rewrite (2 rows, one manifest, one data
// file, location s3://hyperparam-iceberg/athena/example).
const (
	icebergScopeTable = "icebird__athena_example"
	icebergScopeMeta  = "metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json"
)

// icebergFiles are a corpus table's files by path relative to the table folder, and its
// location, manifest list, manifest and data file paths as written.
type icebergFiles struct {
	files                     map[string][]byte
	loc, list, manifest, data string
}

func readIcebergTable(t *testing.T) icebergFiles {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", icebergScopeTable)
	f := icebergFiles{files: map[string][]byte{}}
	require.NoError(t, filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		f.files[filepath.ToSlash(rel)] = b
		return err
	}))
	var m struct {
		Location  string
		Snapshots []struct {
			ManifestList string `json:"manifest-list"`
		}
	}
	require.NoError(t, json.Unmarshal(f.files[icebergScopeMeta], &m))
	f.loc, f.list = m.Location, m.Snapshots[0].ManifestList
	list := decodeAvro(t, f.file(t, f.list))
	f.manifest = list.Values[0].(map[string]any)["manifest_path"].(string)
	man := decodeAvro(t, f.file(t, f.manifest))
	f.data = man.Values[0].(map[string]any)["data_file"].(map[string]any)["file_path"].(string)
	return f
}

// file is the table file that path p (as written) maps to.
func (f icebergFiles) file(t *testing.T, p string) []byte {
	rel, err := iceberg.Relative(f.loc, p)
	require.NoError(t, err)
	b, ok := f.files[rel]
	require.True(t, ok, "no file", rel)
	return b
}

func decodeAvro(t *testing.T, b []byte) *avro.File {
	af, err := avro.Decode(b, 0)
	require.NoError(t, err)
	return af
}

// icebergScopeCase rewrites one path of the table; "{loc}" in a value is the location as
// written, "{out}" where the outside copies are (a local folder, or the table's server),
// "{other}" another origin. Each outside place holds a copy of the file the path stands for.
type icebergScopeCase struct {
	name     string
	location string // the metadata's location ("": unchanged; every path is moved under it)
	list     string // the metadata's manifest-list
	manifest string // the manifest list's manifest_path
	data     string // the manifest's data file_path
	allow    []string
	wantErr  error // nil: the table reads its 2 rows
	entry    string
}

// build writes the table's files, rewritten as tc says, with put (path relative to the
// table folder), and the outside copies with putOut (a file name).
func (f icebergFiles) build(t *testing.T, tc icebergScopeCase, expand func(string) string, put, putOut func(string, []byte)) {
	loc := f.loc
	move := func(s string) string { return s }
	if tc.location != "" {
		loc = expand(tc.location)
		move = func(s string) string {
			if rest, ok := strings.CutPrefix(s, f.loc); ok {
				return strings.TrimSuffix(loc, "/") + rest
			}
			return s
		}
	}
	pick := func(v, def string) string {
		if v == "" {
			return move(def)
		}
		return expand(v)
	}
	listPath, manPath, dataPath := pick(tc.list, f.list), pick(tc.manifest, f.manifest), pick(tc.data, f.data)
	man := rewriteAvro(t, f.file(t, f.manifest), func(s string) string {
		if s == f.data {
			return dataPath
		}
		return move(s)
	})
	list := rewriteAvro(t, f.file(t, f.list), func(s string) string {
		if s == f.manifest {
			return manPath
		}
		return move(s)
	})
	for p, b := range f.files {
		switch {
		case strings.HasSuffix(p, ".metadata.json"):
			var m map[string]any
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			require.NoError(t, d.Decode(&m))
			m["location"] = loc
			for _, s := range m["snapshots"].([]any) {
				s.(map[string]any)["manifest-list"] = listPath
			}
			b, _ = json.Marshal(m)
		case p == mustRel(t, f.loc, f.list):
			b = list
		case p == mustRel(t, f.loc, f.manifest):
			b = man
		}
		put(p, b)
	}
	putOut("evil-list.avro", list)
	putOut("evil-m.avro", man)
	putOut("evil.parquet", f.file(t, f.data))
}

func mustRel(t *testing.T, loc, p string) string {
	rel, err := iceberg.Relative(loc, p)
	require.NoError(t, err)
	return rel
}

// checkIcebergScope checks an open's outcome against the case.
func checkIcebergScope(t *testing.T, tc icebergScopeCase, n int64, err error) {
	t.Helper()
	if tc.wantErr == nil {
		require.NoError(t, err)
		require.Equal(t, int64(2), n)
		return
	}
	require.ErrorContains(t, err, tc.wantErr.Error())
	if tc.wantErr == pqscan.ErrOutOfScope {
		require.ErrorIs(t, err, tc.wantErr)
		require.ErrorContains(t, err, tc.entry)
	}
	t.Logf("error: %v", err)
}

const (
	entryList     = "the Iceberg table's manifest list"
	entryManifest = "the Iceberg table's manifest"
	entryData     = "the Iceberg manifest entry (snapshot 6838723292707092922) for data file"
)

// Test_scopeIcebergLocal: a local Iceberg table at DIR/table/ whose metadata names files
// outside it (the outside copies in DIR/).
func Test_scopeIcebergLocal(t *testing.T) {
	f := readIcebergTable(t)
	other := newScopeServer(t)
	cases := []icebergScopeCase{
		{name: "manifest list with ../", list: "{loc}/../evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at an absolute path", list: "{out}/evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at a file: URL", list: "file://{out}/evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at another origin", list: "{other}/evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest at another origin", manifest: "{other}/evil-m.avro", wantErr: pqscan.ErrOutOfScope, entry: entryManifest},
		{name: "data file with ../", data: "{loc}/../evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file at an absolute path", data: "{out}/evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file at a file: URL", data: "file://{out}/evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file at another origin", data: "{other}/evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file in another bucket", data: "s3://elsewhere/evil.parquet", wantErr: iceberg.ErrOutsideTable},
		{name: "location file:///etc/ maps onto the table folder", location: "file:///etc/"},
		{name: "location file:///etc/, manifest list /etc/passwd", location: "file:///etc/", list: "file:///etc/passwd", wantErr: iceberg.ErrMissingFile},
		{name: "unchanged"},
		{name: "manifest list with ../ into an allowed prefix", list: "{loc}/../evil-list.avro", allow: []string{"{out}/"}},
		{name: "manifest list at an allowed absolute path", list: "{out}/evil-list.avro", allow: []string{"{out}/"}},
		{name: "manifest at an allowed origin", manifest: "{other}/evil-m.avro", allow: []string{"{other}/"}},
		{name: "data file at an allowed file: URL", data: "file://{out}/evil.parquet", allow: []string{"{out}/"}},
		{name: "data file at an allowed origin", data: "{other}/evil.parquet", allow: []string{"{other}/"}},
	}
	for _, e := range scopeEngines(t) {
		for _, tc := range cases {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				other.reset()
				dir := t.TempDir()
				table := filepath.Join(dir, "table")
				expand := strings.NewReplacer("{loc}", f.loc, "{out}", filepath.ToSlash(dir), "{other}", other.URL).Replace
				write := func(p string, b []byte) {
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, b, 0o644))
				}
				f.build(t, tc, expand,
					func(p string, b []byte) { write(filepath.Join(table, filepath.FromSlash(p)), b) },
					func(name string, b []byte) {
						write(filepath.Join(dir, name), b)
						other.mu.Lock()
						other.files["/"+name] = b
						other.mu.Unlock()
					})
				var allow []string
				for _, a := range tc.allow {
					allow = append(allow, expand(a))
				}
				n, err := countRows(context.Background(), []string{filepath.Join(table, icebergScopeMeta)}, pqscan.Options{Engine: e.engine, AllowPrefixes: allow})
				checkIcebergScope(t, tc, n, err)
				if tc.wantErr != nil {
					require.Equal(t, []string(nil), other.requests(), "requests to the other origin")
				}
			})
		}
	}
}

// Test_scopeIcebergHTTP: an Iceberg table at SERVER/t/ whose metadata names files outside it
// (the outside copies at SERVER/ and OTHER/).
func Test_scopeIcebergHTTP(t *testing.T) {
	f := readIcebergTable(t)
	srv, other := newScopeServer(t), newScopeServer(t)
	cases := []icebergScopeCase{
		{name: "manifest list with ../", list: "{loc}/../evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at a file: URL", list: "file:///etc/passwd", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at an absolute path", list: "/etc/passwd", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list outside the table on its origin", list: "{out}/evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest list at another origin", list: "{other}/evil-list.avro", wantErr: pqscan.ErrOutOfScope, entry: entryList},
		{name: "manifest at another origin", manifest: "{other}/evil-m.avro", wantErr: pqscan.ErrOutOfScope, entry: entryManifest},
		{name: "data file with ../", data: "{loc}/../evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file at a file: URL", data: "file:///etc/passwd", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file outside the table on its origin", data: "{out}/evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "data file at another origin", data: "{other}/evil.parquet", wantErr: pqscan.ErrOutOfScope, entry: entryData},
		{name: "location file:///etc/ maps onto the table folder", location: "file:///etc/"},
		{name: "location at another origin maps onto the table folder", location: "{other}/"},
		{name: "location file:///etc/, manifest list /etc/passwd", location: "file:///etc/", list: "file:///etc/passwd", wantErr: iceberg.ErrMissingFile},
		{name: "unchanged"},
		{name: "manifest list at an allowed origin", list: "{other}/evil-list.avro", allow: []string{"{other}/"}},
		{name: "data file at an allowed origin", data: "{other}/evil.parquet", allow: []string{"{other}/"}},
		{name: "data file in an allowed folder on its origin", data: "{out}/evil.parquet", allow: []string{"{out}/evil.parquet"}},
	}
	for _, e := range scopeEngines(t) {
		for _, tc := range cases {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				srv.reset()
				other.reset()
				expand := strings.NewReplacer("{loc}", f.loc, "{out}", srv.URL, "{other}", other.URL).Replace
				srv.mu.Lock()
				srv.files = map[string][]byte{}
				srv.mu.Unlock()
				f.build(t, tc, expand,
					func(p string, b []byte) { srv.mu.Lock(); srv.files["/t/"+p] = b; srv.mu.Unlock() },
					func(name string, b []byte) {
						for _, s := range []*scopeServer{srv, other} {
							s.mu.Lock()
							s.files["/"+name] = b
							s.mu.Unlock()
						}
					})
				var allow []string
				for _, a := range tc.allow {
					allow = append(allow, expand(a))
				}
				n, err := countRows(context.Background(), []string{srv.URL + "/t/" + icebergScopeMeta}, pqscan.Options{Engine: e.engine, AllowPrefixes: allow})
				checkIcebergScope(t, tc, n, err)
				for _, r := range srv.requests() {
					if tc.wantErr != nil || tc.allow == nil {
						require.True(t, strings.HasPrefix(r, "/t/"), "a request outside the table", srv.requests())
					}
				}
				if tc.wantErr != nil || tc.allow == nil {
					require.Equal(t, []string(nil), other.requests(), "requests to the other origin")
				}
			})
		}
	}
}

// rewriteAvro re-encodes an Avro container file (uncompressed) with every string value
// mapped by fn: the reader decodes, this test's minimal encoder writes.
func rewriteAvro(t *testing.T, b []byte, fn func(string) string) []byte {
	return rewriteAvroValues(t, b, func(v any) any { return mapStrings(v, fn) })
}

// rewriteAvroValues re-encodes an Avro container file (uncompressed) with every value (as
// avro.Decode gives it) mapped by fn.
func rewriteAvroValues(t *testing.T, b []byte, fn func(any) any) []byte {
	af := decodeAvro(t, b)
	values := make([]any, len(af.Values))
	for i, v := range af.Values {
		values[i] = fn(v)
	}
	out, err := icebergtest.Container(af, values)
	require.NoError(t, err)
	return out
}

// mapStrings is v (as avro.Decode gives it) with every string mapped by fn.
func mapStrings(v any, fn func(string) string) any {
	switch x := v.(type) {
	case string:
		return fn(x)
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = mapStrings(e, fn)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, fn)
		}
		return out
	}
	return v
}
