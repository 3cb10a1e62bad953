package discover

import (
	"errors"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/protocol"
)

// errStopped ends the algorithm when the session is closed before it finished.
var errStopped = errors.New("discover: closed")

// errorf is an error of kind sentinel whose message is the format's alone.
func errorf(sentinel error, format string, args ...any) error {
	return mark(errf.Errorf(format, args...), sentinel)
}

// mark is err with its message, wrapping err and then marks (fmt.Errorf's "%w%.0w"), so
// that errkind finds err's sentinels first.
func mark(err error, marks ...error) error { return &marked{append([]error{err}, marks...)} }

type marked struct{ errs []error }

func (e *marked) Error() string   { return e.errs[0].Error() }
func (e *marked) Unwrap() []error { return e.errs }

// finder is the discovery algorithm, run as the session's coroutine.
type finder struct {
	s     *Session
	yield func([]Object) bool
}

// ask hands objs to the host (a NeedObjects step) and returns their answers by path.
func (f *finder) ask(objs ...Object) (map[string]answer, error) {
	clear(f.s.got)
	if !f.yield(objs) {
		return nil, errStopped
	}
	return f.s.got, nil
}

func (f *finder) one(o Object) (answer, error) {
	got, err := f.ask(o)
	return got[o.Path], err
}

// http discovers an http(s) URL: the glob's or folder's listing. A folder is listed once
// (every key below it, no delimiter) and decided from its keys: keys in `_delta_log/` make it
// a Delta table (the listed log is the Delta session's listing), else a
// `metadata/*.metadata.json` an Iceberg table (the listed `metadata/` the Iceberg session's),
// else its Parquet files are the listing's. Where the server lists nothing (a plain file
// server), the Delta log's `_last_checkpoint` then its first commit are probed, then the
// Iceberg version hint, and the folder is listed again for the error that names the listing.
func (f *finder) http() error {
	o := f.s.opts
	st, err := parseURL(o.URL, o.PathStyle)
	if err != nil {
		return err
	}
	if o.List || o.Glob {
		return f.files(st, strings.HasSuffix(o.URL, "/"))
	}
	if o.Metadata != "" {
		return f.iceberg(false)
	}
	logPat := st.key + "_delta_log/*"
	objs, ok, err := f.list(st, st.key, true, true, logPat)
	if err != nil {
		return err
	}
	if ok {
		if log := kept(objs, logPat); len(log) > 0 {
			f.s.preList = listEntries(entries(log))
			return f.delta(false)
		}
		if meta := kept(objs, st.key+"metadata/*"); hasMetadataFile(meta) {
			f.s.preList = listEntries(entries(meta))
			return f.iceberg(true)
		}
		if err := noTravel(o); err != nil {
			return err
		}
		return f.filesOf(st, objs, true)
	}
	if o.Resume != nil {
		// A stored replayed state is a Delta table's: its session checks that the log still
		// holds the commit the state ends with, so nothing is probed first.
		return f.delta(false)
	}
	for _, p := range []string{"_delta_log/_last_checkpoint", "_delta_log/00000000000000000000.json"} {
		a, err := f.one(Object{Kind: protocol.ObjectGet, Path: p})
		if err != nil {
			return err
		}
		f.s.pre[p] = a
		if a.Found {
			return f.delta(false)
		}
	}
	clear(f.s.pre)
	const hint = "metadata/version-hint.text"
	a, err := f.one(Object{Kind: protocol.ObjectGet, Path: hint})
	if err != nil {
		return err
	}
	if a.Found {
		f.s.pre[hint] = a
		return f.iceberg(false)
	}
	if err := noTravel(o); err != nil {
		return err
	}
	return f.files(st, true)
}

// hasMetadataFile reports whether the listed objects hold an Iceberg metadata file.
func hasMetadataFile(objs []listing.Object) bool {
	for _, ob := range objs {
		if strings.HasSuffix(ob.Key, ".metadata.json") || strings.HasSuffix(ob.Key, ".metadata.json.gz") {
			return true
		}
	}
	return false
}

// delta and iceberg go on as the table's snapshot session (canList: the host lists the log,
// or the probe's listing answers it).
func (f *finder) delta(canList bool) error {
	o := f.s.opts
	if o.SnapshotID != nil {
		return errorf(ErrOptions, "%s is a Delta table: the snapshotId option reads an Iceberg one (give version)", f.s.label())
	}
	return f.s.startDelta(canList || f.s.preList != nil)
}

func (f *finder) iceberg(canList bool) error {
	if f.s.opts.Version != nil {
		return errorf(ErrOptions, "%s is an Iceberg table: the version option reads a Delta one (give snapshotId or asOf)", f.s.label())
	}
	return f.s.startIceberg(canList)
}

// noTravel refuses the time travel options on what is no table.
func noTravel(o Options) error {
	name := ""
	switch {
	case o.Version != nil:
		name = "version"
	case o.SnapshotID != nil:
		name = "snapshotId"
	case o.AsOf != nil:
		name = "asOf"
	}
	if name == "" {
		return nil
	}
	label := o.URL
	if label == "" {
		label = o.Path
	}
	return errorf(ErrOptions, "%s is not a Delta or Iceberg table (no _delta_log/ nor metadata/): the %s option needs one", label, name)
}

// files ends with the data files of the URL's listing: below its key (folder), or matching
// it as a glob.
func (f *finder) files(st site, folder bool) error {
	objs, _, err := f.list(st, st.key, folder, false, "")
	if err != nil {
		return err
	}
	return f.filesOf(st, objs, folder)
}

// filesOf ends with the data files of a listing's objects.
func (f *finder) filesOf(st site, objs []listing.Object, folder bool) error {
	sel, _ := selector(st.key, folder)
	res := &Result{Format: "files"}
	for _, ob := range objs {
		u := st.objBase + escapeKey(ob.Key)
		if !sel.Keep(ob.Key) {
			res.Listed = append(res.Listed, File{Key: ob.Key, URL: u})
			continue
		}
		res.Files = append(res.Files, File{Key: ob.Key, URL: u, Size: ob.Size, ETag: ob.ETag})
	}
	if len(res.Files) == 0 && !f.s.opts.List {
		return errorf(ErrSource, "%s: no Parquet file there", f.s.opts.URL)
	}
	f.s.res = res
	return nil
}

func selector(key string, folder bool) (glob.Selector, error) {
	if folder {
		return glob.Folder(key), nil
	}
	sel, err := glob.Glob(key)
	if err != nil {
		for _, seg := range strings.Split(key, "/") {
			if i := strings.IndexByte(seg, '['); i >= 0 && !strings.Contains(seg[i+1:], "]") {
				return sel, errorf(ErrOptions, "glob segment %q: unclosed '['", seg)
			}
		}
		return sel, errorf(ErrOptions, "%v", err)
	}
	return sel, nil
}

// list reads a listing page by page: every key the listing of key (a folder, or a glob's
// prefix) names, in listing order. Optional (a probe): a page the host could not fetch
// or the engine cannot parse ends it with ok false instead of an error. With logPat (a Delta
// log's entries, `<folder>_delta_log/*`), the listing ends at the first page past the log
// when it holds log entries: keys come in ascending order, so the pages read hold the whole
// log, and a Delta table's data files are the log's to name, not the listing's.
func (f *finder) list(st site, key string, folder, optional bool, logPat string) (objs []listing.Object, ok bool, err error) {
	sel, err := selector(key, folder)
	if err != nil {
		return nil, false, err
	}
	p := listing.NewPager(listing.Request{Origin: st.origin, Bucket: st.bucket, Style: st.style, Prefix: sel.Prefix()})
	p.MaxPages = f.s.opts.MaxPages
	for {
		u, done, err := p.Next()
		if err != nil {
			return nil, false, errorf(ErrOptions, "%v", err)
		}
		if done {
			break
		}
		a, err := f.one(Object{Kind: protocol.ObjectPage, Path: u, Optional: optional})
		if err != nil {
			return nil, false, err
		}
		if !a.Found {
			if optional {
				return nil, false, nil
			}
			return nil, false, errorf(ErrListing, "listing %s: not found", u)
		}
		if _, err := p.Push(a.Data); err != nil {
			if optional {
				return nil, false, nil
			}
			// The page's URL names it: the pager's own description of it is left out.
			msg := err.Error()
			if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(msg, "listing page ") {
				msg = inner.Error()
			}
			return nil, false, mark(errf.Errorf("%s: %s", u, strings.TrimPrefix(msg, "dataset: ")), err, ErrListing)
		}
		if logPat != "" && !p.Done() && pastLog(p.Objects(), logPat) {
			break
		}
	}
	return p.Objects(), true, nil
}

// pastLog reports whether the listed objects hold a Delta log's entries (logPat) and end
// past the log, in ascending key order: a listing out of order could name a log entry
// later, and a snapshot missing a commit would be a wrong table.
func pastLog(objs []listing.Object, logPat string) bool {
	logDir := strings.TrimSuffix(logPat, "*")
	if len(objs) == 0 {
		return false
	}
	last := objs[len(objs)-1].Key
	if last <= logDir || strings.HasPrefix(last, logDir) {
		return false
	}
	if !sort.SliceIsSorted(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key }) {
		return false
	}
	return len(kept(objs, logPat)) > 0
}

// kept are the objects a glob keeps.
func kept(objs []listing.Object, pattern string) []listing.Object {
	sel, _ := selector(pattern, false)
	var out []listing.Object
	for _, ob := range objs {
		if sel.Keep(ob.Key) {
			out = append(out, ob)
		}
	}
	return out
}

// entries are listed objects as a snapshot session's listing: names after the last '/'.
func entries(objs []listing.Object) []ListEntry {
	out := make([]ListEntry, len(objs))
	for i, ob := range objs {
		out[i] = ListEntry{Name: ob.Key[strings.LastIndexByte(ob.Key, '/')+1:], Size: ob.Size, ModTime: parseTime(ob.LastModified)}
	}
	return out
}

// local discovers a local folder or glob: the glob's walk, else a Delta table (a
// `_delta_log/` folder), else an Iceberg table (a `metadata/` folder, or the metadata file
// named), else every `*.parquet` below the folder.
func (f *finder) local() error {
	o := f.s.opts
	if o.Glob {
		return f.localGlob()
	}
	a, err := f.one(Object{Kind: protocol.ObjectStat, Path: ""})
	if err != nil {
		return err
	}
	if !a.Found {
		return errorf(ErrSource, "%s: %s", o.Path, a.Data)
	}
	if string(a.Data) != "dir" {
		return errorf(ErrSource, "%s is not a folder", o.Path)
	}
	isDir := func(p string) (bool, error) {
		a, err := f.one(Object{Kind: protocol.ObjectStat, Path: p})
		return a.Found && string(a.Data) == "dir", err
	}
	isDelta := false
	if o.Metadata == "" {
		if isDelta, err = isDir("_delta_log"); err != nil {
			return err
		}
	}
	if !isDelta {
		ice := o.Metadata != ""
		if !ice {
			if ice, err = isDir("metadata"); err != nil {
				return err
			}
		}
		if ice {
			return f.iceberg(true)
		}
		if err := noTravel(o); err != nil {
			return err
		}
		keys, err := f.walk("", false, o.Path)
		if err != nil {
			return err
		}
		return f.localFiles(keys, glob.Folder(""), "")
	}
	return f.delta(true)
}

func (f *finder) localGlob() error {
	abs := f.s.opts.Abs
	meta := strings.IndexAny(abs, "*?[")
	if meta < 0 {
		meta = len(abs)
	}
	base := abs[:strings.LastIndexByte(abs[:meta], '/')+1]
	sel, err := selector(abs[len(base):], false)
	if err != nil {
		return err
	}
	keys, err := f.walk(base, true, f.s.opts.Path)
	if err != nil {
		return err
	}
	if err := f.localFiles(keys, sel, base); err != nil {
		return err
	}
	if len(f.s.res.Files) == 0 {
		f.s.res = nil
		return errorf(ErrSource, "%s: no file matches", f.s.opts.Path)
	}
	return nil
}

// walk asks for the files below dir (relative to the root, or absolute); label names the
// walk in its errors.
func (f *finder) walk(dir string, abs bool, label string) ([]string, error) {
	a, err := f.one(Object{Kind: protocol.ObjectWalk, Path: dir, Absolute: abs})
	if err != nil {
		return nil, err
	}
	if !a.Found {
		return nil, errorf(ErrSource, "%s: %s", label, a.Data)
	}
	keys, err := walkKeys(a.Data)
	if err != nil {
		return nil, errf.Errorf("%w: the walk of %q: %w", ErrProtocol, dir, err)
	}
	return keys, nil
}

// walkKeys reads a walk's answer, a JSON array of keys (null: none; a null key reads as "",
// as encoding/json decoded it).
func walkKeys(data []byte) ([]string, error) {
	v, err := jsonv.Parse(data)
	if err != nil || v.Kind == jsonv.Null {
		return nil, err
	}
	if v.Kind != jsonv.Array {
		return nil, errf.Errorf("want an array of keys, got %s", v.Kind)
	}
	keys := make([]string, len(v.Elems))
	for i := range v.Elems {
		switch e := &v.Elems[i]; e.Kind {
		case jsonv.String, jsonv.Null:
			keys[i] = e.S
		default:
			return nil, errf.Errorf("key %d: want a string, got %s", i, e.Kind)
		}
	}
	return keys, nil
}

func (f *finder) localFiles(keys []string, sel glob.Selector, dir string) error {
	res := &Result{Format: "files", Dir: dir}
	for _, k := range keys {
		if sel.Keep(k) {
			res.Files = append(res.Files, File{Key: k})
		}
	}
	f.s.res = res
	return nil
}

// label names the dataset in messages: the URL or the path as given.
func (s *Session) label() string {
	if s.opts.URL != "" {
		return s.opts.URL
	}
	return s.opts.Path
}
