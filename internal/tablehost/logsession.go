package tablehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/localfs"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
)

// deltaEngine is an Engine that runs the Delta log replay itself (a *wazerohost.Host: in the
// module, as every other byte of the table is read there); with any other engine the session
// runs natively.
type deltaEngine interface {
	StartDeltaSession(ctx context.Context, opts deltasession.Options) (deltasession.Driven, error)
}

// deltaFetches bounds the log objects of one round in flight at once: a probe batch (8
// commits) goes out together, as the session asks for it.
const deltaFetches = 8

// loadDelta replays the log of the Delta table at root up to version (-1: the latest) by
// hosting a Delta session. log, when not nil, is the _delta_log/ listing the folder's
// ListObjectsV2 gave (the answer to the session's one "list" request); without it a local
// table lists its directory and an http(s) one is probed. Every object and checkpoint file the
// session names is checked against sc before it is read.
func loadDelta(ctx context.Context, root string, version int64, opts Options, log []byte, probes map[string]discover.Probe, sc *openscope.Scope) (*deltasession.Snapshot, error) {
	mc := metacache.New(opts.MetadataCache) // the replayed state of the latest version
	so := deltasession.Options{CanList: !openscope.IsHTTP(root) || log != nil, MemoryCap: opts.MemoryCap, TailSize: opts.TailSize, Root: rootURI(root),
		KeepState: mc != nil && version < 0 && opts.DeltaAsOf.IsZero()}
	so.Resume = mc.DeltaState(so.Root)
	if version >= 0 {
		so.Version = &version
	}
	if !opts.DeltaAsOf.IsZero() {
		ms := opts.DeltaAsOf.UnixMilli()
		so.AsOf = &ms
	}
	var s deltasession.Driven
	var err error
	if de, ok := opts.Engine.(deltaEngine); ok {
		s, err = de.StartDeltaSession(ctx, so)
	} else {
		s, err = deltasession.StartNative(so)
	}
	if err != nil {
		return nil, err
	}
	snap, err := driveSnapshot(ctx, root, opts, log, probes, sc, s, nil)
	if err == nil && len(snap.State) > 0 && !bytes.Equal(snap.State, so.Resume) {
		mc.PutDeltaState(so.Root, snap.State)
	}
	return snap, err
}

// driveSnapshot hosts a table log session (Delta, Iceberg) on the table at root until its
// snapshot: its objects are read locally or over HTTP (log, when not nil, answers a "list"),
// its checkpoint files by range; everything it names is checked against sc first. Objects
// cache holds (when not nil) are answered from it, and those fetched are added to it.
func driveSnapshot(ctx context.Context, root string, opts Options, log []byte, probes map[string]discover.Probe, sc *openscope.Scope, s deltasession.Driven, cache *objectCache) (*deltasession.Snapshot, error) {
	defer s.Close()
	var closers []*os.File
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	d := &drive.Driver{Sess: s,
		// The checkpoint, sidecar and deletion vector files the session reads, by file index.
		Files: func(i int) (httpclient.Source, string, error) {
			files, err := s.Files()
			if err != nil {
				return nil, "", err
			}
			if i < 0 || i >= len(files) {
				return nil, "", fmt.Errorf("%w: checkpoint file %d of %d", drive.ErrProtocol, i, len(files))
			}
			owners, err := s.Owners()
			if err != nil {
				return nil, "", err
			}
			// A Delta checkpoint or sidecar, an Iceberg delete file, or a deletion vector.
			what, name := fmt.Sprintf("the table's file %q", files[i]), ""
			if i < len(owners) && owners[i] != "" {
				what = fmt.Sprintf("the deletion vector %q of data file %s", files[i], owners[i])
				name = " (the deletion vector of " + owners[i] + ")"
			}
			// A bare absolute path (/x/…: an Iceberg delete file outside the table location,
			// as local writers name files) names that file, never one under the root.
			abs := delta.IsAbsolute(files[i]) || strings.HasPrefix(files[i], "/")
			at, err := sc.Locate(root, files[i], abs, what)
			if err != nil {
				return nil, "", err
			}
			if openscope.IsHTTP(at) {
				return httpclient.NewHTTP(at, opts.HTTP), at + name, nil
			}
			fh, err := os.Open(at)
			if err != nil {
				return nil, "", fmt.Errorf("%w%s", err, name)
			}
			closers = append(closers, fh)
			st, err := fh.Stat()
			if err != nil {
				return nil, "", err
			}
			return httpclient.NewReaderAt(fh, st.Size()), at + name, nil
		},
		OnObjects: func(ctx context.Context, mu sync.Locker) error {
			mu.Lock()
			objs, err := s.Objects()
			if err == nil {
				objs, err = probeAnswers(objs, probes, s.PushObject)
			}
			if err == nil {
				objs, err = cache.answer(objs, s.PushObject)
			}
			mu.Unlock()
			if err != nil {
				return err
			}
			return answerObjects(ctx, root, opts, log, sc, objs, func(o deltasession.Object, b []byte, found bool) error {
				mu.Lock()
				defer mu.Unlock()
				if found {
					cache.put(o.Path, b)
				}
				return s.PushObject(o.Path, b, found)
			})
		},
	}
	for {
		st, err := d.Step(ctx)
		if err != nil {
			return nil, err
		}
		if st.Kind == scan.Done {
			return s.Snapshot()
		}
	}
}

// rootURI is the table root as the absolute URI a Delta log's absolute paths are compared
// with (deletion vectors under it are read): the URL itself, or a local folder's file: URL.
func rootURI(root string) string {
	if openscope.IsHTTP(root) {
		return root
	}
	abs, err := filepath.Abs(filepath.FromSlash(root))
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String()
}

// answerObjects gets the objects of one NeedObjects step, deltaFetches at a time, and pushes
// the answers in the session's order (the first error in that order wins).
func answerObjects(ctx context.Context, root string, opts Options, log []byte, sc *openscope.Scope, objs []deltasession.Object,
	push func(o deltasession.Object, b []byte, found bool) error) error {
	type answer struct {
		b     []byte
		found bool
		err   error
	}
	ans := make([]answer, len(objs))
	sem := make(chan struct{}, deltaFetches)
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if ans[i].err = ctx.Err(); ans[i].err == nil {
				ans[i].b, ans[i].found, ans[i].err = getObject(ctx, root, opts, log, sc, o)
			}
		}()
	}
	wg.Wait()
	for i, o := range objs {
		if ans[i].err != nil {
			return ans[i].err
		}
		if err := push(o, ans[i].b, ans[i].found); err != nil {
			return err
		}
	}
	return nil
}

// getObject answers one object request on the table at root: a "get" is the object's bytes
// (found false: it does not exist); a "list" is the JSON of the entries under the prefix,
// from log when the folder's listing gave it, else from the local directory.
func getObject(ctx context.Context, root string, opts Options, log []byte, sc *openscope.Scope, o deltasession.Object) ([]byte, bool, error) {
	what := fmt.Sprintf("the Delta log's %s of %q", o.Kind, o.Path)
	if o.Entry != "" {
		what = "the Iceberg table's " + o.Entry
	}
	if o.Absolute {
		return getAbsolute(ctx, root, opts, sc, o, what)
	}
	local := filepath.Join(filepath.FromSlash(root), filepath.FromSlash(o.Path))
	if openscope.IsHTTP(root) {
		if err := sc.CheckURL(root+o.Path, what); err != nil {
			return nil, false, err
		}
	} else if err := sc.CheckLocal(local, what); err != nil {
		return nil, false, err
	}
	if o.Kind == "list" {
		if log != nil {
			return log, true, nil
		}
		ents := []deltasession.ListEntry{}
		if openscope.IsHTTP(root) {
			return nil, false, fmt.Errorf("%w: the Delta session asked to list %s of a server that does not list", drive.ErrProtocol, o.Path)
		} else {
			// Links followed: a log assembled from linked commits lists their sizes.
			des, err := localfs.ReadDir(local)
			if err != nil {
				return nil, false, err
			}
			for _, e := range des {
				if e.Dir {
					continue
				}
				ent := deltasession.ListEntry{Name: e.Name, Size: -1}
				if info, err := e.Info(); err == nil {
					ent.Size, ent.ModTime = info.Size(), info.ModTime().UnixMilli()
				}
				ents = append(ents, ent)
			}
		}
		b, err := json.Marshal(ents)
		return b, true, err
	}
	if o.Kind != "get" {
		return nil, false, fmt.Errorf("%w: Delta object request kind %q", drive.ErrProtocol, o.Kind)
	}
	if openscope.IsHTTP(root) && o.Fresh {
		return httpGetWhole(ctx, root+o.Path, opts.HTTP)
	} else if openscope.IsHTTP(root) {
		return getImmutable(ctx, root+o.Path, o.Path, opts)
	}
	b, err := os.ReadFile(local)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// getAbsolute answers a "get" of an object outside the table root (deltaLocation): only
// when the open's scope covers it, checked before it is read.
func getAbsolute(ctx context.Context, root string, opts Options, sc *openscope.Scope, o deltasession.Object, what string) ([]byte, bool, error) {
	if o.Kind != "get" {
		return nil, false, fmt.Errorf("%w: %s of an absolute path", drive.ErrProtocol, o.Kind)
	}
	at, err := sc.Locate(root, o.Path, true, what)
	if err != nil {
		return nil, false, err
	}
	if openscope.IsHTTP(at) {
		return getImmutable(ctx, at, o.Path, opts)
	}
	b, err := os.ReadFile(at)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}
