package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Malicious tables: a table's metadata (a Delta log, a listing) and a server's redirects name
// what the reader fetches, and must not lead it outside what the open named. Each case fails
// with ErrOutOfScope before any request for the outside location leaves (the servers' logs
// show none); the legitimate variants still read.

// scopeServer serves files by path, resolving dot segments as a file server does (so that,
// unchecked, "../x" would reach x), logs every request and can redirect or list.
type scopeServer struct {
	*httptest.Server
	mu        sync.Mutex
	log       []string // cleaned paths, with "?list" for listing requests
	files     map[string][]byte
	redirects map[string]string // path → Location
	listing   map[string]string // list prefix → ListObjectsV2 XML
}

func newScopeServer(t *testing.T) *scopeServer {
	s := &scopeServer{files: map[string][]byte{}, redirects: map[string]string{}, listing: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean(r.URL.Path)
		q := r.URL.Query()
		s.mu.Lock()
		if q.Get("list-type") != "" {
			s.log = append(s.log, p+"?list="+q.Get("prefix"))
		} else {
			s.log = append(s.log, p)
		}
		body, ok := s.files[p]
		loc := s.redirects[p]
		xml, listed := s.listing[q.Get("prefix")]
		s.mu.Unlock()
		switch {
		case q.Get("list-type") != "" && listed:
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, xml)
		case q.Get("list-type") != "":
			http.Error(w, "no listing", http.StatusNotImplemented)
		case loc != "":
			http.Redirect(w, r, loc, http.StatusTemporaryRedirect)
		case ok:
			http.ServeContent(w, r, p, time.Time{}, strings.NewReader(string(body)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scopeServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *scopeServer) reset() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

// requested reports whether any logged request is for p.
func (s *scopeServer) requested(p string) bool {
	for _, r := range s.requests() {
		if r == p {
			return true
		}
	}
	return false
}

const scopeSchema = `{"type":"struct","fields":[{"name":"letter","type":"string","nullable":true,"metadata":{}},{"name":"number","type":"long","nullable":true,"metadata":{}},{"name":"a_float","type":"double","nullable":true,"metadata":{}}]}`

// scopeData is a 3-row Parquet file of scopeSchema.
func scopeData(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta",
		"part-00000-3c9f01c2-6db4-4cbc-a744-dbc2f79eb78a-c000.snappy.parquet"))
	require.NoError(t, err)
	return b
}

// deltaCommit is version 0 of a table whose one add action names addPath; dv, when not nil,
// is its deletion vector (the protocol then has the deletionVectors feature).
func deltaCommit(t *testing.T, addPath string, size int, dv map[string]any) []byte {
	protocol := map[string]any{"minReaderVersion": 1, "minWriterVersion": 2}
	if dv != nil {
		protocol = map[string]any{"minReaderVersion": 3, "minWriterVersion": 7,
			"readerFeatures": []string{"deletionVectors"}, "writerFeatures": []string{"deletionVectors"}}
	}
	add := map[string]any{"path": addPath, "partitionValues": map[string]string{}, "size": size,
		"modificationTime": 1, "dataChange": true}
	if dv != nil {
		add["deletionVector"] = dv
	}
	var out []byte
	for _, a := range []map[string]any{
		{"protocol": protocol},
		{"metaData": map[string]any{"id": "x", "format": map[string]any{"provider": "parquet"}, "schemaString": scopeSchema,
			"partitionColumns": []string{}, "configuration": map[string]string{}}},
		{"add": add},
	} {
		b, err := json.Marshal(a)
		require.NoError(t, err)
		out = append(append(out, b...), '\n')
	}
	return out
}

// countRows opens srcs as a dataset and counts its rows.
func countRows(ctx context.Context, srcs []string, o pqscan.Options) (int64, error) {
	ds, err := pqscan.OpenDataset(ctx, srcs, o)
	if err != nil {
		return 0, err
	}
	defer ds.Close()
	n, _, err := ds.Count(ctx, pqscan.ScanOptions{})
	return n, err
}

type scopeCase struct {
	name    string
	add     string         // the add action's path
	dv      map[string]any // its deletion vector
	allow   []string
	wantErr error // nil: the table reads its 3 rows
}

// Test_scopeDeltaLocal: a local Delta table at DIR/table/ whose log names files outside it.
func Test_scopeDeltaLocal(t *testing.T) {
	data := scopeData(t)
	other := newScopeServer(t)
	other.files["/evil.parquet"] = data
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	require.NoError(t, os.MkdirAll(filepath.Join(table, "_delta_log"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil-outside.parquet"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(table, "good.parquet"), data, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "evil-outside.parquet"), filepath.Join(table, "link.parquet")))
	require.NoError(t, os.Symlink(table, filepath.Join(dir, "tablelink")))
	fileURL := func(p string) string { return "file://" + filepath.ToSlash(p) }
	cases := []scopeCase{
		{name: "add path with ../", add: "../evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "add path with %2e%2e", add: "%2e%2e/evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "add path with ..%2F", add: "sub/..%2F..%2Fevil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "absolute file: URI outside", add: fileURL(filepath.Join(dir, "evil-outside.parquet")), wantErr: pqscan.ErrOutOfScope},
		{name: "absolute URL to another origin", add: other.URL + "/evil.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "symlink inside the table that leads out", add: "link.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "deletion vector with an absolute path outside", add: "good.parquet", wantErr: pqscan.ErrOutOfScope,
			dv: map[string]any{"storageType": "p", "pathOrInlineDv": other.URL + "/dv.bin", "offset": 1, "sizeInBytes": 36, "cardinality": 1}},
		{name: "relative path inside", add: "good.parquet"},
		{name: "absolute file: URI inside the table", add: fileURL(filepath.Join(table, "good.parquet"))},
		{name: "../ into an allowed prefix", add: "../evil-outside.parquet", allow: []string{dir + "/"}},
		{name: "symlink into an allowed prefix", add: "link.parquet", allow: []string{dir + "/"}},
		{name: "absolute URL in an allowed prefix", add: other.URL + "/evil.parquet", allow: []string{other.URL + "/"}},
	}
	for _, e := range scopeEngines(t) {
		for _, tc := range cases {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				other.reset()
				commit := deltaCommit(t, tc.add, len(data), tc.dv)
				require.NoError(t, os.WriteFile(filepath.Join(table, "_delta_log", "00000000000000000000.json"), commit, 0o644))
				n, err := countRows(context.Background(), []string{table + "/"}, pqscan.Options{Engine: e.engine, AllowPrefixes: tc.allow})
				checkScope(t, tc, n, err)
				if tc.wantErr != nil {
					require.Equal(t, []string(nil), other.requests(), "requests to the other origin")
				}
			})
		}
		t.Run(e.name+"/table named through a symlink", func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(table, "_delta_log", "00000000000000000000.json"), deltaCommit(t, "good.parquet", len(data), nil), 0o644))
			n, err := countRows(context.Background(), []string{filepath.Join(dir, "tablelink") + "/"}, pqscan.Options{Engine: e.engine})
			require.NoError(t, err)
			require.Equal(t, int64(3), n)
		})
	}
}

// Test_scopeDeltaHTTP: a Delta table at SERVER/t/ whose log names files outside it.
func Test_scopeDeltaHTTP(t *testing.T) {
	data := scopeData(t)
	srv, other := newScopeServer(t), newScopeServer(t)
	srv.files["/t/good.parquet"] = data
	srv.files["/evil-outside.parquet"] = data
	other.files["/evil.parquet"] = data
	cases := []scopeCase{
		{name: "add path with ../", add: "../evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "add path with %2e%2e", add: "%2e%2e/evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "add path with a double-encoded ..", add: "%252e%252e/evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "absolute file: URI", add: "file:///etc/passwd", wantErr: pqscan.ErrOutOfScope},
		{name: "absolute URL to another origin", add: other.URL + "/evil.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "absolute URL outside the table on its origin", add: srv.URL + "/evil-outside.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "absolute URL with userinfo", add: strings.Replace(srv.URL, "http://", "http://u:p@", 1) + "/t/good.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "deletion vector with an absolute path outside", add: "good.parquet", wantErr: pqscan.ErrOutOfScope,
			dv: map[string]any{"storageType": "p", "pathOrInlineDv": other.URL + "/dv.bin", "offset": 1, "sizeInBytes": 36, "cardinality": 1}},
		{name: "relative path inside", add: "good.parquet"},
		{name: "absolute URL inside the table", add: srv.URL + "/t/good.parquet"},
		{name: "absolute URL in an allowed prefix", add: other.URL + "/evil.parquet", allow: []string{other.URL + "/"}},
	}
	for _, e := range scopeEngines(t) {
		for _, tc := range cases {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				srv.reset()
				other.reset()
				srv.mu.Lock()
				srv.files["/t/_delta_log/00000000000000000000.json"] = deltaCommit(t, tc.add, len(data), tc.dv)
				srv.mu.Unlock()
				n, err := countRows(context.Background(), []string{srv.URL + "/t/"}, pqscan.Options{Engine: e.engine, AllowPrefixes: tc.allow})
				checkScope(t, tc, n, err)
				if tc.wantErr != nil {
					require.Equal(t, []string(nil), other.requests(), "requests to the other origin")
					require.True(t, !srv.requested("/evil-outside.parquet"), "requested the outside file", srv.requests())
					require.True(t, !srv.requested("/etc/passwd"), srv.requests())
				}
			})
		}
	}
}

func checkScope(t *testing.T, tc scopeCase, n int64, err error) {
	t.Helper()
	if tc.wantErr == nil {
		require.NoError(t, err)
		require.Equal(t, int64(3), n)
		return
	}
	// The module's refusals cross the boundary as messages.
	require.ErrorContains(t, err, tc.wantErr.Error())
	if errors.Is(tc.wantErr, pqscan.ErrOutOfScope) {
		require.ErrorIs(t, err, tc.wantErr)
		// The message names the log entry that asked (its path decoded): an add action, or
		// the deletion vector of one.
		entry := "add action"
		if tc.dv != nil {
			entry = "deletion vector"
		}
		require.ErrorContains(t, err, entry)
	}
	t.Logf("error: %v", err)
}

// Test_scopeListing: an S3 listing of SERVER/h/ whose keys climb out of the folder.
func Test_scopeListing(t *testing.T) {
	data := scopeData(t)
	srv := newScopeServer(t)
	srv.files["/h/good.parquet"] = data
	srv.files["/evil-outside.parquet"] = data
	listing := func(keys ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>false</IsTruncated>`)
		for _, k := range keys {
			fmt.Fprintf(&b, `<Contents><Key>%s</Key><Size>%d</Size></Contents>`, k, len(data))
		}
		b.WriteString(`</ListBucketResult>`)
		return b.String()
	}
	for _, e := range scopeEngines(t) {
		for _, tc := range []struct {
			name    string
			keys    []string
			wantErr error
		}{
			{name: "key with ..", keys: []string{"h/good.parquet", "h/../evil-outside.parquet"}, wantErr: pqscan.ErrOutOfScope},
			// A literal "%2e%2e" is sent escaped ("%252e%252e"): a server decoding twice would climb.
			{name: "key with %2e%2e", keys: []string{"h/%2e%2e/evil-outside.parquet"}, wantErr: pqscan.ErrOutOfScope},
			{name: "key beside the prefix", keys: []string{"h/good.parquet", "evil-outside.parquet"}, wantErr: pqscan.ErrOutOfScope},
			{name: "keys inside", keys: []string{"h/good.parquet"}},
		} {
			t.Run(e.name+"/"+tc.name, func(t *testing.T) {
				srv.reset()
				srv.mu.Lock()
				srv.listing["h/"] = listing(tc.keys...)
				srv.mu.Unlock()
				n, err := countRows(context.Background(), []string{srv.URL + "/h/"}, pqscan.Options{Engine: e.engine})
				require.True(t, !srv.requested("/evil-outside.parquet"), "requested the outside file", srv.requests())
				if tc.wantErr != nil {
					require.ErrorIs(t, err, tc.wantErr)
					require.ErrorContains(t, err, fmt.Sprintf("%q", tc.keys[len(tc.keys)-1]))
					require.True(t, !srv.requested("/h/good.parquet"), "a file of a refused listing was read")
					return
				}
				require.NoError(t, err)
				require.Equal(t, int64(len(tc.keys))*3, n)
			})
		}
	}
}

// Test_scopeRedirect: a server redirecting a file's requests to another origin.
func Test_scopeRedirect(t *testing.T) {
	data := scopeData(t)
	srv, other := newScopeServer(t), newScopeServer(t)
	other.files["/f.parquet"] = data
	srv.files["/store/f.parquet"] = data
	srv.redirects["/r/f.parquet"] = other.URL + "/f.parquet"
	srv.redirects["/s/f.parquet"] = "/store/f.parquet"
	for _, tc := range []struct {
		name    string
		src     string
		opts    pqscan.Options
		wantErr error
		reached bool // the other origin serves the file
	}{
		{name: "to another origin", src: "/r/f.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "to an allowed origin", src: "/r/f.parquet", opts: pqscan.Options{RedirectOrigins: []string{other.URL}}, reached: true},
		{name: "to an allowed prefix", src: "/r/f.parquet", opts: pqscan.Options{AllowPrefixes: []string{other.URL + "/f.parquet"}}, reached: true},
		{name: "to the same origin outside the file", src: "/s/f.parquet", wantErr: pqscan.ErrOutOfScope},
		{name: "to the same origin in an allowed prefix", src: "/s/f.parquet", opts: pqscan.Options{AllowPrefixes: []string{srv.URL + "/store/"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.reset()
			other.reset()
			f, err := pqscan.Open(context.Background(), srv.URL+tc.src, tc.opts)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorContains(t, err, "a redirect from "+srv.URL+tc.src)
				require.Equal(t, []string(nil), other.requests(), "requests to the other origin")
				require.True(t, !srv.requested("/store/f.parquet"), srv.requests())
				return
			}
			require.NoError(t, err)
			defer f.Close()
			require.Equal(t, int64(3), f.Metadata().NumRows)
			require.Equal(t, tc.reached, len(other.requests()) > 0)
		})
	}
}

// Test_scopeLocalWalk: a local folder holding a symbolic link that leads out of it.
func Test_scopeLocalWalk(t *testing.T) {
	data := scopeData(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "h"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h", "good.parquet"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outside.parquet"), data, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "outside.parquet"), filepath.Join(dir, "h", "link.parquet")))
	ctx := context.Background()
	_, err := countRows(ctx, []string{filepath.Join(dir, "h") + "/"}, pqscan.Options{})
	require.ErrorIs(t, err, pqscan.ErrOutOfScope)
	require.ErrorContains(t, err, "link.parquet")
	n, err := countRows(ctx, []string{filepath.Join(dir, "h") + "/"}, pqscan.Options{AllowPrefixes: []string{dir}})
	require.NoError(t, err)
	require.Equal(t, int64(6), n)
	// A file named on its own is in scope through its link.
	n, err = countRows(ctx, []string{filepath.Join(dir, "h", "link.parquet"), filepath.Join(dir, "h", "good.parquet")}, pqscan.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(6), n)
}

type scopeEngine struct {
	name   string
	engine pqscan.Engine
}

// scopeEngines are the native engine and the wasm module: the checks are the host's, so
// the module's Delta sessions meet them too.
func scopeEngines(t *testing.T) []scopeEngine {
	return []scopeEngine{{"native", pqscan.Native{}}, {"wasm", wasmHost(t)}}
}
