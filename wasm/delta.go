//go:build !pqscan_lean

package main

import (
	"errors"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// The Delta snapshot session (pq_open_delta): the log replay runs here, in the module, so
// that the JS bridge and the wazero host read Delta tables without a replay of their own.
// Its steps are NeedObjects (7: whole log objects, pq_objects / pq_push_object) and NeedData
// (6: checkpoint Parquet ranges, pq_delta_files names the files, pq_push_file /
// pq_set_file_size answer); Done leaves the table session's options in pq_snapshot.

// The Iceberg snapshot session (pq_open_iceberg, internal/dataset/icebergsession) speaks the
// same steps with the same exports: NeedObjects (its metadata, manifest list and manifests
// are whole objects), NeedData (its delete files), then Done with its snapshot in pq_snapshot.

// objectSession is a session of a table's objects: Delta, Iceberg or a discovery.
type objectSession = discover.SnapshotSession

// deltaSession adapts a snapshot session to the handle table (it has no Arrow schema of its
// own).
type deltaSession struct{ objectSession }

var errNotDelta = errors.New("wasm: the handle is not a Delta or Iceberg session (pq_open_delta, pq_open_iceberg)")

func (deltaSession) Schema() ([]byte, error) {
	return nil, errors.New("wasm: a Delta or Iceberg session has no schema: open the table session with pq_snapshot")
}

func (d deltaSession) PushOwned(off int64, b []byte) error { return d.Push(off, b) }

func (m *module) openIceberg(p uint32, n int32) int32 {
	var opts icebergsession.Options
	parse := func(raw []byte) (err error) { opts, err = parseIcebergOptions(raw); return err }
	return m.openParsed("pq_open_iceberg", p, n, parse, func() (objectSession, error) { return icebergsession.New(opts) })
}

func (m *module) openDelta(p uint32, n int32) int32 {
	var opts deltasession.Options
	parse := func(raw []byte) (err error) { opts, err = deltasession.ParseOptions(raw); return err }
	return m.openParsed("pq_open_delta", p, n, parse, func() (objectSession, error) { return deltasession.New(opts) })
}

// parseIcebergOptions reads pq_open_iceberg's JSON as deltasession.ParseOptions reads
// pq_open_delta's: its first value, strictly (an unknown member is an error).
func parseIcebergOptions(raw []byte) (icebergsession.Options, error) {
	var o icebergsession.Options
	v, _, err := jsonv.ParseFirst(raw)
	if err != nil {
		return o, err
	}
	r := jsonv.NewObj(&v, "")
	if err := r.Unknown("metadata", "canList", "snapshotId", "where", "asOf", "pathMap", "listOnly"); err != nil {
		return o, err
	}
	o.Metadata, o.CanList, o.Where, o.ListOnly = r.Str("metadata"), r.Bool("canList"), r.Str("where"), r.Bool("listOnly")
	if n, ok := r.OptInt("snapshotId"); ok {
		o.SnapshotID = &n
	}
	if n, ok := r.OptInt("asOf"); ok {
		o.AsOf = &n
	}
	o.PathMap = r.StrMap("pathMap")
	return o, r.Err()
}

// openParsed reads a snapshot session's JSON options with parse (when given any) and starts
// the session with start.
func (m *module) openParsed(fn string, p uint32, n int32, parse func([]byte) error, start func() (objectSession, error)) int32 {
	raw, err := m.hostBytes(fn, p, n)
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	if len(raw) > 0 {
		if err := parse(raw); err != nil {
			m.fail(nil, "wasm: "+fn+": options: "+err.Error())
			return codeErr
		}
	}
	s, err := start()
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	return m.add(deltaSession{s})
}

// deltaOf returns handle h's Delta session.
func (m *module) deltaOf(fn string, h int32) (*session, objectSession, bool) {
	s, ok := m.session(fn, h)
	if !ok || m.poisoned(s) {
		return nil, nil, false
	}
	d, ok := s.sc.(deltaSession)
	if !ok {
		m.fail(s, fn+": "+errNotDelta.Error())
		return nil, nil, false
	}
	return s, d.objectSession, true
}

// deltaJSON returns the JSON get writes in the handle's result buffer.
func (m *module) deltaJSON(fn string, h int32, get func(objectSession) ([]byte, error)) int64 {
	s, d, ok := m.deltaOf(fn, h)
	if !ok {
		return fail64
	}
	b, err := get(d)
	if err != nil {
		m.fail(s, "wasm: "+fn+": "+err.Error())
		return fail64
	}
	s.out = b
	return packResult(b)
}

func (m *module) deltaObjects(h int32) int64 {
	return m.deltaJSON("pq_objects", h, func(d objectSession) ([]byte, error) { return deltasession.AppendObjects(nil, d.Objects()), nil })
}

func (m *module) deltaFiles(h int32) int64 {
	return m.deltaJSON("pq_delta_files", h, func(d objectSession) ([]byte, error) { return jsonw.Strings(nil, d.Files()), nil })
}

func (m *module) deltaOwners(h int32) int64 {
	return m.deltaJSON("pq_delta_owners", h, func(d objectSession) ([]byte, error) { return jsonw.Strings(nil, d.Owners()), nil })
}

func (m *module) deltaSnapshot(h int32) int64 {
	return m.deltaJSON("pq_snapshot", h, func(d objectSession) ([]byte, error) {
		if dis, ok := d.(*discover.Session); ok {
			if r := dis.Result(); r != nil {
				return appendResult(r)
			}
			// Before Done, the table format so far ("" while undecided): a host's sources and
			// messages for the table's files depend on it.
			return append(jsonw.String([]byte(`{"format":`), dis.Format()), '}'), nil
		}
		if snap := d.Snapshot(); snap != nil {
			table, err := appendTableOptions(nil, &snap.Table)
			if err != nil {
				return nil, err
			}
			return deltasession.AppendSnapshot(nil, snap, table), nil
		}
		return nil, errors.New("the session has not reached Done")
	})
}

func (m *module) pushObject(h int32, pp uint32, pn int32, p uint32, n int32, found int32) int32 {
	path, err := m.hostBytes("pq_push_object", pp, pn)
	var data []byte
	if err == nil {
		data, err = m.hostBytes("pq_push_object", p, n)
	}
	s, d, ok := m.deltaOf("pq_push_object", h)
	if !ok {
		return codeErr
	}
	if err == nil {
		err = d.PushObject(string(path), data, found != 0)
	}
	if err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

//go:wasmexport pq_open_delta
func pqOpenDelta(p, n int32) (h int32) {
	defer guard("pq_open_delta", 0, &h, codePanic)
	retuneGC()
	return mod.openDelta(uint32(p), n)
}

//go:wasmexport pq_open_iceberg
func pqOpenIceberg(p, n int32) (h int32) {
	defer guard("pq_open_iceberg", 0, &h, codePanic)
	retuneGC()
	return mod.openIceberg(uint32(p), n)
}

//go:wasmexport pq_objects
func pqObjects(h int32) (v int64) {
	defer guard("pq_objects", h, &v, fail64)
	return mod.deltaObjects(h)
}

//go:wasmexport pq_push_object
func pqPushObject(h, pp, pn, p, n, found int32) (rc int32) {
	defer guard("pq_push_object", h, &rc, codePanic)
	retuneGC()
	return mod.pushObject(h, uint32(pp), pn, uint32(p), n, found)
}

//go:wasmexport pq_delta_files
func pqDeltaFiles(h int32) (v int64) {
	defer guard("pq_delta_files", h, &v, fail64)
	return mod.deltaFiles(h)
}

//go:wasmexport pq_delta_owners
func pqDeltaOwners(h int32) (v int64) {
	defer guard("pq_delta_owners", h, &v, fail64)
	return mod.deltaOwners(h)
}

//go:wasmexport pq_snapshot
func pqSnapshot(h int32) (v int64) {
	defer guard("pq_snapshot", h, &v, fail64)
	return mod.deltaSnapshot(h)
}

// appendResult writes a discovery's result as Marshal wrote the discover.Result: the
// embedded snapshot's members (when there is one), then its own.
func appendResult(r *discover.Result) ([]byte, error) {
	w := jsonw.Begin(nil)
	if r.Snapshot != nil {
		table, err := appendTableOptions(nil, &r.Snapshot.Table)
		if err != nil {
			return nil, err
		}
		deltasession.AppendSnapshotMembers(&w, r.Snapshot, table)
	}
	w.Str(`,"format":`, r.Format)
	appendDiscovered(&w, `,"files":`, r.Files)
	if r.Dir != "" {
		w.Str(`,"dir":`, r.Dir)
	}
	appendDiscovered(&w, `,"listed":`, r.Listed)
	return w.End(), nil
}

// appendDiscovered writes files as member name (as jsonw's Key takes it), left out when
// empty (omitempty).
func appendDiscovered(w *jsonw.Object, name string, files []discover.File) {
	if len(files) == 0 {
		return
	}
	w.Key(name)
	for i := range files {
		f := &files[i]
		o := jsonw.Begin(append(w.B, ",["[b2i(i == 0)]))
		o.Str(`,"key":`, f.Key)
		if f.URL != "" {
			o.Str(`,"url":`, f.URL)
		}
		o.Int(`,"size":`, f.Size)
		if f.ETag != "" {
			o.Str(`,"etag":`, f.ETag)
		}
		w.B = o.End()
	}
	w.B = append(w.B, ']')
}
