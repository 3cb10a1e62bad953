package tablehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/localfs"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scope"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// maxListingPage bounds one ListObjectsV2 response body (1,000 keys are about 300 KB).
const maxListingPage = 16 << 20

// addDiscovered adds a folder or glob (local or http(s)) as the engine's discovery finds it:
// a Delta or Iceberg table, whose log this host then replays with the engine it was given,
// or the data files of a plain folder or glob. This host only answers the discovery's
// requests (listing pages, walks, stats, probe objects).
func (t *Table) addDiscovered(ctx context.Context, s, nonce string) error {
	o := discover.Options{Glob: glob.HasMeta(s), PathStyle: t.opts.PathStyleListing}
	if openscope.IsHTTP(s) {
		// A glob's listing may come back empty: the dataset's other sources may have files.
		o.URL, o.List = s, o.Glob
		// A stored Delta state (loadDelta) makes the folder a Delta table without a probe
		// where the server does not list.
		o.Resume = metacache.New(t.opts.MetadataCache).DeltaState(rootURI(s))
	} else {
		// The glob as written: the walk is of its folder as written, so the files' paths are
		// the ones the user named.
		o.Path, o.Abs = s, filepath.ToSlash(s)
	}
	var table discover.Detection
	o.Detected = func(d discover.Detection) { table = d }
	h := &discoverHost{t: t, root: s, paths: map[string]string{}}
	res, err := discover.Run(ctx, o, h, h)
	if err != nil {
		if o.URL != "" && !o.Glob && (h.pageFailed || errors.Is(err, discover.ErrListing)) {
			// The folder's own listing is asked last, when no table was found.
			return fmt.Errorf("%s has no Delta log nor Iceberg version hint, and listing its Parquet files failed: %w%.0w", s, err, openscope.ErrSource)
		}
		if errors.Is(err, discover.ErrSource) && (o.URL != "" || o.Glob) {
			// A folder or glob with no data file: the dataset's other sources may have
			// some (Open refuses a dataset with none).
			return nil
		}
		if errors.Is(err, openscope.ErrSource) || !isDiscoverError(err) {
			return err
		}
		if !strings.Contains(err.Error(), s) {
			return fmt.Errorf("%s: %w%.0w", s, err, openscope.ErrSource)
		}
		return fmt.Errorf("%w%.0w", err, openscope.ErrSource)
	}
	switch res.Format {
	case "delta":
		return t.addDelta(ctx, s, nonce, table.List, table.Probes)
	case "iceberg":
		return t.addIceberg(ctx, s, "", nonce, table.List, table.Probes)
	}
	if o.URL != "" {
		return t.addListed(s, res, nonce)
	}
	paths := make([]string, len(res.Files))
	for i, f := range res.Files {
		if paths[i] = h.paths[f.Key]; paths[i] == "" {
			return fmt.Errorf("%w: the discovery named %q, which its walk did not list", discover.ErrProtocol, f.Key)
		}
	}
	return t.addLocal(s, paths)
}

// isDiscoverError reports whether err is one of the discovery's own kinds.
func isDiscoverError(err error) bool {
	for _, k := range []error{discover.ErrOptions, discover.ErrSource, discover.ErrListing, discover.ErrProtocol} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// addListed appends the files of an http(s) listing. Any listed key that leads outside the
// scope (a ".." segment, an escaped one, a key beside the prefix), kept or not, fails the
// open before any file is requested: such a listing is not to be trusted.
func (t *Table) addListed(src string, res *discover.Result, nonce string) error {
	for _, fs := range [][]discover.File{res.Listed, res.Files} {
		for _, f := range fs {
			if err := t.scope.CheckURL(f.URL, fmt.Sprintf("the listing of %s (key %q)", src, f.Key)); err != nil {
				return err
			}
		}
	}
	for _, f := range res.Files {
		ho := t.opts.HTTP
		ho.FileSize = f.Size
		version := nonce
		if f.ETag != "" {
			// The Source holds the file to this ETag (If-Match), so the footer cache may key
			// on it across Opens: opening the dataset again fetches no footer.
			ho.ETag = `"` + f.ETag + `"`
			version = "etag:" + f.ETag
		}
		t.files = append(t.files, tablescan.File{Path: f.URL, Key: f.Key, Size: f.Size, Version: version})
		t.srcs = append(t.srcs, t.opts.use.source(metacache.New(t.opts.MetadataCache), f.URL, ho, false)) // the stored tail, when of this ETag
	}
	return nil
}

// discoverHost answers a discovery's requests for the source root.
type discoverHost struct {
	t    *Table
	root string
	// paths are the walked files' paths by key, as the walk wrote them.
	paths map[string]string
	// pageFailed: a listing page that is no probe failed.
	pageFailed bool
}

func (h *discoverHost) Object(ctx context.Context, o discover.Object) ([]byte, bool, error) {
	switch o.Kind {
	case protocol.ObjectPage:
		b, err := objectGetter("", h.t.opts.HTTP, maxListingPage).Get(ctx, o.Path)
		if err == nil {
			return b, true, nil
		}
		if o.Optional && !errors.Is(err, scope.ErrOutside) {
			return nil, false, nil // a server that does not list: the engine probes instead
		}
		h.pageFailed = true
		return nil, false, fmt.Errorf("%w: listing: %w", openscope.ErrSource, err)
	case protocol.ObjectWalk:
		return h.walk(o)
	case protocol.ObjectStat:
		p := filepath.FromSlash(h.root)
		if o.Path != "" {
			p = filepath.Join(p, filepath.FromSlash(o.Path))
		}
		st, err := os.Stat(p)
		if err != nil {
			if o.Path == "" {
				return nil, false, err // the folder itself: its own error
			}
			return []byte(err.Error()), false, nil
		}
		if st.IsDir() {
			return []byte("dir"), true, nil
		}
		return []byte("file"), true, nil
	}
	return getObject(ctx, h.root, h.t.opts, nil, h.t.scope, o)
}

// walk lists the files below a folder (relative to the root, or as the glob names it),
// symbolic links followed, cycles and broken links skipped (internal/localfs), sorted.
func (h *discoverHost) walk(o discover.Object) ([]byte, bool, error) {
	dir := o.Path
	if !o.Absolute {
		dir = filepath.ToSlash(filepath.Join(filepath.FromSlash(h.root), filepath.FromSlash(o.Path))) + "/"
	}
	if dir == "" {
		dir = "."
	}
	keys := []string{}
	err := localfs.Walk(filepath.FromSlash(dir), func(p string) error {
		rel, err := filepath.Rel(filepath.FromSlash(dir), p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		h.paths[key] = p
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	sort.Strings(keys)
	b, err := json.Marshal(keys)
	return b, true, err
}

// Range is never asked: the discovery ends at its decision (Options.Detected).
func (h *discoverHost) Range(context.Context, string, int64, int64) ([]byte, int64, error) {
	return nil, 0, fmt.Errorf("%w: a range read during discovery", discover.ErrProtocol)
}

// probeAnswers pushes the objects of objs the discovery's probes read (each once, then
// forgotten) and returns the others.
func probeAnswers(objs []deltasession.Object, probes map[string]discover.Probe, push func(p string, b []byte, found bool) error) ([]deltasession.Object, error) {
	if len(probes) == 0 {
		return objs, nil
	}
	rest := objs[:0:0]
	for _, o := range objs {
		p, ok := probes[o.Path]
		if !ok || o.Kind != "get" || o.Absolute {
			rest = append(rest, o)
			continue
		}
		delete(probes, o.Path)
		if err := push(o.Path, p.Data, p.Found); err != nil {
			return nil, err
		}
	}
	return rest, nil
}
