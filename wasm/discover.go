//go:build !pqscan_lean

package main

import (
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// The discovery session (pq_open_discover, internal/dataset/discover): what an opened folder,
// glob or metadata file is (a Delta table, an Iceberg table, plain files) is decided here, in
// the module, with the snapshot sessions' steps and exports; Done leaves its
// discover.Result (a snapshot, or the files) in pq_snapshot.

func (m *module) openDiscover(p uint32, n int32) int32 {
	var opts discover.Options
	return m.openParsed("pq_open_discover", p, n, func(raw []byte) (err error) {
		opts, err = parseDiscoverOptions(raw)
		return err
	}, func() (objectSession, error) { return discover.New(opts) })
}

// parseDiscoverOptions reads pq_open_discover's options strictly (an unknown member is an
// error), the first JSON value only, as encoding/json's Decoder read them.
func parseDiscoverOptions(raw []byte) (discover.Options, error) {
	var o discover.Options
	v, _, err := jsonv.ParseFirst(raw)
	if err != nil {
		return o, err
	}
	r := jsonv.NewObj(&v, "")
	if err := r.Unknown("url", "pathStyle", "path", "abs", "glob", "list", "metadata", "version", "snapshotId",
		"asOf", "rootURL", "pathMap", "tailSize", "memoryCap", "maxPages", "resume", "keepState"); err != nil {
		return o, err
	}
	o.URL, o.PathStyle, o.Path, o.Abs, o.Glob, o.List = r.Str("url"), r.Bool("pathStyle"), r.Str("path"), r.Str("abs"), r.Bool("glob"), r.Bool("list")
	o.Metadata, o.RootURL, o.PathMap = r.Str("metadata"), r.Str("rootURL"), r.StrMap("pathMap")
	for _, f := range []struct {
		key string
		p   **int64
	}{{"version", &o.Version}, {"snapshotId", &o.SnapshotID}, {"asOf", &o.AsOf}} {
		if n, ok := r.OptInt(f.key); ok {
			*f.p = &n
		}
	}
	o.TailSize, o.MemoryCap, o.MaxPages = r.Int("tailSize"), r.Int("memoryCap"), int(intN(r, "maxPages", 64))
	o.Resume, o.KeepState = r.Bytes("resume"), r.Bool("keepState")
	return o, r.Err()
}

//go:wasmexport pq_open_discover
func pqOpenDiscover(p, n int32) (h int32) {
	defer guard("pq_open_discover", 0, &h, codePanic)
	retuneGC()
	return mod.openDiscover(uint32(p), n)
}
