package wazerohost

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
)

// DeltaSession is the module's Delta snapshot session (pq_open_delta): the log replay runs in
// the guest, as for the JS bridge, and this host only moves bytes. Its steps are
// scan.NeedObjects (answer Objects with PushObject), scan.NeedData (checkpoint Parquet:
// Files names the file indexes; PushFile / SetFileSizeOf), then Done (Snapshot) or Error. It
// has the same methods as *deltasession.Session, so one driver serves both.
type DeltaSession struct{ *Session }

// StartDelta opens a Delta snapshot session. It does no I/O.
func (h *Host) StartDelta(ctx context.Context, opts deltasession.Options) (*DeltaSession, error) {
	return h.startObjects(ctx, "pq_open_delta", opts)
}

// StartIceberg opens the module's Iceberg snapshot session (pq_open_iceberg): its steps are
// NeedObjects only (the metadata file, the manifest list, the manifests), then Done with the
// snapshot as a Delta session's. It does no I/O.
func (h *Host) StartIceberg(ctx context.Context, opts icebergsession.Options) (*DeltaSession, error) {
	return h.startObjects(ctx, "pq_open_iceberg", opts)
}

// StartIcebergSession is StartIceberg as a deltasession.Driven: how package pqscan reads an
// Iceberg table's metadata in the module when the Host is its Engine.
func (h *Host) StartIcebergSession(ctx context.Context, opts icebergsession.Options) (deltasession.Driven, error) {
	s, err := h.StartIceberg(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// startObjects opens a snapshot session with the export open and its JSON options.
func (h *Host) startObjects(ctx context.Context, open string, opts any) (*DeltaSession, error) {
	js, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("wazerohost: options: %w", err)
	}
	in, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{h: h, in: in, ctx: ctx}
	fn, err := s.export(open)
	if err == nil {
		err = s.openWith(fn, open, js)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return &DeltaSession{s}, nil
}

// export looks up an optional export of the Delta session (a module without it is ErrABI).
func (s *Session) export(name string) (api.Function, error) {
	in, err := s.live()
	if err != nil {
		return nil, err
	}
	f := in.mod.ExportedFunction(name)
	if f == nil {
		return nil, fmt.Errorf("%w: the module has no %s (rebuild it: make wasm)", ErrABI, name)
	}
	return f, nil
}

// jsonOf calls a JSON-returning export of the session into v.
func (d *DeltaSession) jsonOf(name string, v any) error {
	f, err := d.export(name)
	if err != nil {
		return err
	}
	b, err := d.in.buffer(d.ctx, f, name, d.handle)
	if err != nil {
		return d.died(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrABI, name, err)
	}
	return nil
}

// Objects are the requests of the last NeedObjects step.
func (d *DeltaSession) Objects() ([]deltasession.Object, error) {
	var o []deltasession.Object
	return o, d.jsonOf("pq_objects", &o)
}

// Files is the checkpoint file table NeedData's file indexes name.
func (d *DeltaSession) Files() ([]string, error) {
	var f []string
	return f, d.jsonOf("pq_delta_files", &f)
}

// Owners names the data file whose deletion vector each file of the table holds ("": none).
func (d *DeltaSession) Owners() ([]string, error) {
	var o []string
	return o, d.jsonOf("pq_delta_owners", &o)
}

// Snapshot is the result after Done.
func (d *DeltaSession) Snapshot() (*deltasession.Snapshot, error) {
	var s deltasession.Snapshot
	if err := d.jsonOf("pq_snapshot", &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// PushObject answers one object of the last NeedObjects step (found false: it does not exist).
func (d *DeltaSession) PushObject(path string, data []byte, found bool) error {
	f, err := d.export("pq_push_object")
	if err != nil {
		return err
	}
	in := d.in
	pp, err := in.writeOwned(d.ctx, []byte(path)) // two buffers at once: write reuses one
	if err != nil {
		return d.died(err)
	}
	defer in.call(d.ctx, in.free, "pq_free", api.EncodeU32(pp)) //nolint:errcheck // best effort
	p, err := in.write(d.ctx, data)
	if err != nil {
		return d.died(err)
	}
	fl := int32(0)
	if found {
		fl = 1
	}
	// Six parameters: past instance.call's fixed stack, so through Call (it allocates; a
	// log object is pushed once).
	res, err := f.Call(d.ctx, api.EncodeI32(d.handle), api.EncodeU32(pp), api.EncodeI32(int32(len(path))),
		api.EncodeU32(p), api.EncodeI32(int32(len(data))), api.EncodeI32(fl))
	if err != nil {
		in.kill()
		return d.died(in.callErr(d.ctx, "pq_push_object", err))
	}
	if int32(res[0]) < 0 {
		return in.failure(d.ctx, "pq_push_object", d.handle, ErrScan)
	}
	return nil
}

// StartDeltaSession is StartDelta as a deltasession.Driven: how package pqscan runs a Delta
// table's log replay in the module when the Host is its Engine.
func (h *Host) StartDeltaSession(ctx context.Context, opts deltasession.Options) (deltasession.Driven, error) {
	s, err := h.StartDelta(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}
