package discover_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

const origin = "https://bucket.test"

// hiveHost is a plain folder: partitions, hidden and bookkeeping files, a nested table.
func hiveHost() *memHost {
	h := &memHost{origin: origin, root: "t/", lists: true, maxKeys: 2, objs: map[string][]byte{}}
	for _, k := range []string{
		"t/a=1/part-0.parquet", "t/a=1/part-1.parquet", "t/a=2/part-0.parquet", "t/_c=1/x.parquet",
		"t/_SUCCESS", "t/.hidden/x.parquet", "t/a=1/_tmp.parquet", "t/a=1/x.parquet._COPYING_",
		"t/notes.txt", "t/sp ace/é+x(1).parquet", "u/other.parquet",
	} {
		h.objs[k] = []byte("PAR1")
	}
	return h
}

func files(r *discover.Result) []string {
	var out []string
	for _, f := range r.Files {
		out = append(out, f.Key)
	}
	return out
}

func Test_httpFolder(t *testing.T) {
	h := hiveHost()
	r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/"}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t/_c=1/x.parquet", "t/a=1/part-0.parquet", "t/a=1/part-1.parquet", "t/a=2/part-0.parquet", "t/sp ace/é+x(1).parquet"}
	if r.Format != "files" || !reflect.DeepEqual(files(r), want) {
		t.Fatalf("got %s %q, want %q", r.Format, files(r), want)
	}
	if got := r.Files[4].URL; got != origin+"/t/sp%20ace/%C3%A9%2Bx(1).parquet" {
		t.Errorf("URL %s", got)
	}
	if got := r.Files[1].URL; got != origin+"/t/a=1/part-0.parquet" || r.Files[1].Size != 4 || r.Files[1].ETag != "e4" {
		t.Errorf("file %+v", r.Files[1])
	}
	if len(r.Listed) != 5 {
		t.Errorf("listed %+v", r.Listed)
	}
	// One listing of the folder (10 keys, 2 a page) decides it and gives its files.
	if h.log[0] != "page "+origin+"/?list-type=2&prefix=t%2F" || h.count("page ") != 5 || len(h.log) != 5 {
		t.Errorf("requests %q", h.log)
	}
}

func Test_httpGlob(t *testing.T) {
	for _, c := range []struct {
		glob string
		want []string
	}{
		{"t/a=*/part-*.parquet", []string{"t/a=1/part-0.parquet", "t/a=1/part-1.parquet", "t/a=2/part-0.parquet"}},
		{"t/**", []string{"t/_c=1/x.parquet", "t/a=1/part-0.parquet", "t/a=1/part-1.parquet", "t/a=2/part-0.parquet", "t/notes.txt", "t/sp ace/é+x(1).parquet"}},
		{"t/_c=1/*", []string{"t/_c=1/x.parquet"}},
	} {
		h := hiveHost()
		r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/" + c.glob, Glob: true}, h, h)
		if err != nil {
			t.Fatal(c.glob, err)
		}
		if !reflect.DeepEqual(files(r), c.want) {
			t.Errorf("%s: %q, want %q", c.glob, files(r), c.want)
		}
		if h.count("page ") == 0 || strings.Contains(h.log[0], "_delta_log") {
			t.Errorf("%s: requests %q", c.glob, h.log)
		}
	}
}

func Test_pathStyle(t *testing.T) {
	h := hiveHost()
	h.origin = "http://127.0.0.1:9000"
	r, err := discover.Run(context.Background(), discover.Options{URL: "http://127.0.0.1:9000/bkt/t/a=2/", PathStyle: true, List: true}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 1 || r.Files[0].URL != "http://127.0.0.1:9000/bkt/t/a=2/part-0.parquet" {
		t.Fatalf("%+v", r.Files)
	}
	if h.log[0] != "page http://127.0.0.1:9000/bkt?list-type=2&prefix=t%2Fa%3D2%2F" {
		t.Errorf("requests %q", h.log)
	}
}

// Test_errors: each failure is an error of its kind, the host's own errors unchanged.
func Test_errors(t *testing.T) {
	garbage := map[string]string{"prefix=t%2F": "<ListBucketResult><Contents><Key>t/x.parquet</Key>"}
	for _, c := range []struct {
		name  string
		o     discover.Options
		pages map[string]string
		lists bool
		want  error
		msg   string
	}{
		{"no files", discover.Options{URL: origin + "/none/"}, nil, true, discover.ErrSource, "https://bucket.test/none/: no Parquet file there"},
		{"truncated XML", discover.Options{URL: origin + "/t/", List: true}, garbage, true, discover.ErrListing, "malformed listing"},
		{"service error", discover.Options{URL: origin + "/t/", List: true}, map[string]string{"prefix=t": "<Error><Code>AccessDenied</Code><Message>no</Message></Error>"}, true, discover.ErrListing, "AccessDenied"},
		{"truncated without token", discover.Options{URL: origin + "/t/", List: true}, map[string]string{"prefix=t": "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"}, true, discover.ErrListing, "continuation token"},
		{"token loop", discover.Options{URL: origin + "/t/", List: true}, map[string]string{"prefix=t": "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>a</NextContinuationToken></ListBucketResult>"}, true, discover.ErrListing, "again"},
		{"not listed", discover.Options{URL: origin + "/t/"}, nil, false, errHTTP404, "HTTP 404"},
		{"version on a folder", discover.Options{URL: origin + "/t/", Version: i64(1)}, nil, true, discover.ErrOptions, "the version option needs one"},
		{"bad glob", discover.Options{URL: origin + "/t/[a", Glob: true}, nil, true, discover.ErrOptions, "unclosed"},
		{"not http", discover.Options{URL: "ftp://x/t/"}, nil, true, discover.ErrOptions, "http(s)"},
		{"path-style without a bucket", discover.Options{URL: origin + "/t", PathStyle: true}, nil, true, discover.ErrOptions, "bucket"},
		{"too many pages", discover.Options{URL: origin + "/t/", List: true, MaxPages: 2}, nil, true, listing.ErrTooManyPages, "pages"},
	} {
		h := hiveHost()
		h.pages, h.lists = c.pages, c.lists
		_, err := discover.Run(context.Background(), c.o, h, h)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.want, c.msg)
		}
	}
}

// Test_probeFallback: a folder listing the engine cannot use (garbage, refused) falls back
// to the probe objects, as a server that does not list does; a plain folder is then listed
// again for its files.
func Test_probeFallback(t *testing.T) {
	h := hiveHost()
	h.refuse = 1
	r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/"}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 5 || h.count("get _delta_log/") != 2 || h.count("get metadata/version-hint.text") != 1 || h.count("page ") != 1+5 {
		t.Errorf("files %q, requests %q", files(r), h.log)
	}
	h = deltaHost(t, true)
	h.refuse = 1
	r, err = discover.Run(context.Background(), discover.Options{URL: origin + "/t/"}, h, h)
	if err != nil || r.Format != "delta" || h.log[1] != "get _delta_log/_last_checkpoint" {
		t.Errorf("delta: %v, requests %q", err, h.log)
	}
}

// Test_listingEscape: a listed key out of the folder is never a file: it is in Listed, which
// the host checks against the open's scope.
func Test_listingEscape(t *testing.T) {
	h := hiveHost()
	h.objs["t/../x.parquet"] = []byte("PAR1")
	r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/"}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Listed, func(f discover.File) bool { return f.URL == origin+"/t/../x.parquet" }) || slices.ContainsFunc(r.Files, func(f discover.File) bool { return strings.Contains(f.Key, "..") }) {
		t.Errorf("files %q listed %+v", files(r), r.Listed)
	}
}

// drive runs a snapshot session directly (the oracle: the table read without discovery).
func drive(t *testing.T, s interface {
	Next() scan.Step
	Objects() []deltasession.Object
	PushObject(string, []byte, bool) error
	Files() []string
	SetFileSizeOf(int, int64) error
	PushFile(int, int64, []byte) error
	Snapshot() *deltasession.Snapshot
}, h *memHost) *deltasession.Snapshot {
	t.Helper()
	for range 10000 {
		st := s.Next()
		switch st.Kind {
		case scan.Done:
			return s.Snapshot()
		case scan.Error:
			t.Fatal(st.Err)
		case scan.NeedObjects:
			for _, o := range s.Objects() {
				b, found, err := h.Object(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.PushObject(o.Path, b, found); err != nil {
					t.Fatal(err)
				}
			}
		case scan.NeedData:
			for _, r := range st.Reqs {
				b, size, err := h.Range(context.Background(), s.Files()[r.File], r.Off, r.Len)
				if err != nil {
					t.Fatal(err)
				}
				off := r.Off
				if off < 0 {
					s.SetFileSizeOf(r.File, size)
					off = size - int64(len(b))
				}
				s.PushFile(r.File, off, b)
			}
		}
	}
	t.Fatal("no end")
	return nil
}

func deltaHost(t *testing.T, lists bool) *memHost {
	h := &memHost{origin: origin, root: "t/", lists: lists, maxKeys: 1}
	if err := h.load(filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_partitioned", "delta"), "t/"); err != nil {
		t.Fatal(err)
	}
	return h
}

func Test_httpDelta(t *testing.T) {
	for _, lists := range []bool{true, false} {
		h := deltaHost(t, lists)
		ds, _ := deltasession.New(deltasession.Options{CanList: false, Root: origin + "/t/"})
		want := drive(t, ds, &memHost{objs: h.objs, root: "t/"})
		r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/"}, h, h)
		if err != nil {
			t.Fatal(lists, err)
		}
		if r.Format != "delta" || !reflect.DeepEqual(r.Paths, want.Paths) || r.Version != want.Version {
			t.Fatalf("lists %v: %s %q v%d, want %q v%d", lists, r.Format, r.Paths, r.Version, want.Paths, want.Version)
		}
		// The probes' reads answer the session: no object is asked twice, and the listing
		// (one key a page) is read once, up to the first page past the log (its 2 commits).
		seen := map[string]bool{}
		for _, l := range h.log {
			if seen[l] {
				t.Errorf("lists %v: %s asked twice: %q", lists, l, h.log)
			}
			seen[l] = true
		}
		if lists && (h.count("page ") != 3 || h.count("list ") != 0 || h.count("get ") != 2) {
			t.Errorf("requests %q", h.log)
		}
		if !lists && h.log[1] != "get _delta_log/_last_checkpoint" {
			t.Errorf("requests %q", h.log)
		}
	}
	h := deltaHost(t, true)
	_, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", SnapshotID: i64(1)}, h, h)
	if !errors.Is(err, discover.ErrOptions) || !strings.Contains(err.Error(), "is a Delta table") {
		t.Errorf("snapshotId: %v", err)
	}
	// asOf by the listing's LastModified (every commit at 2024-01-02T03:04:05.678Z).
	h = deltaHost(t, true)
	if r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", AsOf: i64(1704164645678)}, h, h); err != nil || r.Format != "delta" {
		t.Errorf("asOf: %v %+v", err, r)
	}
	h = deltaHost(t, true)
	if _, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", AsOf: i64(1704164645677)}, h, h); err == nil {
		t.Errorf("asOf before the first commit: no error")
	}
	h = deltaHost(t, true)
	r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", Version: i64(0)}, h, h)
	if err != nil || r.Version != 0 {
		t.Errorf("version 0: %v", err)
	}
	h = deltaHost(t, true)
	_, err = discover.Run(context.Background(), discover.Options{URL: origin + "/t/", Version: i64(7)}, h, h)
	if !errors.Is(err, discover.ErrDelta) && !strings.Contains(err.Error(), "version") {
		t.Errorf("version 7: %v", err)
	}
}

func icebergHost(t *testing.T, lists bool, root string) *memHost {
	h := &memHost{origin: origin, root: root, lists: lists, maxKeys: 3}
	if err := h.load(filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "icebird__spark_bunnies"), root); err != nil {
		t.Fatal(err)
	}
	return h
}

func Test_iceberg(t *testing.T) {
	for _, c := range []struct {
		name string
		h    *memHost
		o    discover.Options
	}{
		{"listing", icebergHost(t, true, "t/"), discover.Options{URL: origin + "/t/"}},
		{"version hint", icebergHost(t, false, "t/"), discover.Options{URL: origin + "/t/"}},
		{"local", icebergHost(t, false, "/data/t/"), discover.Options{Path: "/data/t/"}},
	} {
		r, err := discover.Run(context.Background(), c.o, c.h, c.h)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if r.Format != "iceberg" || len(r.Paths) == 0 {
			t.Errorf("%s: %s %q", c.name, r.Format, r.Paths)
		}
		if c.name == "version hint" && c.h.count("get metadata/version-hint.text") != 1 {
			t.Errorf("%s: requests %q", c.name, c.h.log)
		}
	}
	h := icebergHost(t, true, "t/")
	_, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", Version: i64(1)}, h, h)
	if !errors.Is(err, discover.ErrOptions) || !strings.Contains(err.Error(), "is an Iceberg table") {
		t.Errorf("version: %v", err)
	}
	h = icebergHost(t, true, "t/")
	_, err = discover.Run(context.Background(), discover.Options{URL: origin + "/t/", SnapshotID: i64(42)}, h, h)
	if !errors.Is(err, discover.ErrIceberg) && err == nil {
		t.Errorf("snapshot 42: %v", err)
	}
}

func Test_local(t *testing.T) {
	h := hiveHost()
	local := map[string][]byte{}
	for k, v := range h.objs {
		local["/data/"+k] = v
	}
	h.objs = local
	h.root, h.origin = "/data/t/", ""
	r, err := discover.Run(context.Background(), discover.Options{Path: "/data/t/"}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"_c=1/x.parquet", "a=1/part-0.parquet", "a=1/part-1.parquet", "a=2/part-0.parquet", "sp ace/é+x(1).parquet"}
	if !reflect.DeepEqual(files(r), want) {
		t.Errorf("folder: %q", files(r))
	}
	if !reflect.DeepEqual(h.log, []string{"stat ", "stat _delta_log", "stat metadata", "walk "}) {
		t.Errorf("requests %q", h.log)
	}
	r, err = discover.Run(context.Background(), discover.Options{Path: "../t/a=*/*.parquet", Abs: "/data/t/a=*/*.parquet", Glob: true}, h, h)
	if err != nil || r.Dir != "/data/t/" || !reflect.DeepEqual(files(r), want[1:4]) {
		t.Errorf("glob: %v %s %q", err, r.Dir, files(r))
	}
	for _, c := range []struct {
		o    discover.Options
		want error
		msg  string
	}{
		{discover.Options{Path: "x/", Abs: "/data/x/"}, discover.ErrSource, "x/: no such file"},
		{discover.Options{Path: "f", Abs: "/data/t/notes.txt"}, discover.ErrSource, ""},
		{discover.Options{Path: "g", Abs: "/data/t/*.csv", Glob: true}, discover.ErrSource, "g: no file matches"},
		{discover.Options{Path: "/data/t/", AsOf: i64(1)}, discover.ErrOptions, "the asOf option needs one"},
	} {
		h.log = nil
		if c.o.Path == "x/" || c.o.Path == "f" {
			h.root = c.o.Abs
		} else {
			h.root = "/data/t/"
		}
		_, err := discover.Run(context.Background(), c.o, h, h)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v", c.o, err)
		}
	}
	d := &memHost{root: "/data/t/"}
	if err := d.load(filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_partitioned", "delta"), "/data/t/"); err != nil {
		t.Fatal(err)
	}
	r, err = discover.Run(context.Background(), discover.Options{Path: "/data/t/", RootURL: "file:///data/t/"}, d, d)
	if err != nil || r.Format != "delta" || len(r.Paths) == 0 {
		t.Fatalf("delta: %v", err)
	}
	if d.log[0] != "stat " || d.log[1] != "stat _delta_log" || d.log[2] != "list _delta_log/" {
		t.Errorf("requests %q", d.log)
	}
}

func Test_protocol(t *testing.T) {
	s, err := discover.New(discover.Options{URL: origin + "/t/"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.Next(); st.Kind != scan.NeedObjects {
		t.Fatal(st.Kind)
	}
	if err := s.PushObject("nope", nil, true); !errors.Is(err, discover.ErrProtocol) {
		t.Errorf("unasked: %v", err)
	}
	if st := s.Next(); st.Kind != scan.Error || !errors.Is(st.Err, discover.ErrProtocol) {
		t.Errorf("Next with objects unanswered: %v", st.Err)
	}
	if _, err := discover.New(discover.Options{}); !errors.Is(err, discover.ErrOptions) {
		t.Errorf("no source: %v", err)
	}
	// Closing mid-discovery ends the coroutine.
	s2, _ := discover.New(discover.Options{URL: origin + "/t/"})
	s2.Next()
	s2.Close()
}

// Test_detected: with Options.Detected the discovery ends at its decision on a table and
// hands over what its probes read; with a stored Delta state (Resume) a server that does not
// list is taken for the Delta table the state is of, without a probe.
func Test_detected(t *testing.T) {
	h := hiveHost()
	h.refuse = 1
	h.objs["t/_delta_log/00000000000000000000.json"] = []byte("{}")
	var got discover.Detection
	r, err := discover.Run(context.Background(), discover.Options{URL: origin + "/t/", Detected: func(d discover.Detection) { got = d }}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	lc, c0 := got.Probes["_delta_log/_last_checkpoint"], got.Probes["_delta_log/00000000000000000000.json"]
	if r.Format != "delta" || got.Format != "delta" || got.List != nil || lc.Found || !c0.Found || string(c0.Data) != "{}" {
		t.Errorf("result %+v, detection %+v", r, got)
	}
	h.log, h.refuse = nil, 1
	r, err = discover.Run(context.Background(), discover.Options{URL: origin + "/t/", Resume: []byte("state"), Detected: func(d discover.Detection) { got = d }}, h, h)
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != "delta" || len(got.Probes) != 0 || h.count("get ") != 0 {
		t.Errorf("resumed: result %+v, requests %q", r, h.log)
	}
}
