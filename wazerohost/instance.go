package wazerohost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/pqscan/pqscan/internal/errkind"
	"github.com/pqscan/pqscan/internal/protocol"
)

// ABI constants (wasm/ABI.md); the step and error kinds are internal/protocol's.
const (
	abiVersion = 1

	fail64 = ^uint64(0) // an i64 buffer result of -1
)

// instance is one module instance and its exports. It is used by one scan at a time. After any
// failed call (a trap, an exit, a closed context) it is dead: the module is closed and it is
// never called again (wasm/ABI.md "Traps").
type instance struct {
	mod    api.Module
	mem    api.Memory
	stderr *capture
	limit  uint32 // memory limit in pages, for error messages

	alloc, free, open, next, ranges, ipc, push, setSize, report, errorFn, closeFn, debug api.Function
	schema, metadata, openTable, pushFile, setFileSize                                   api.Function
	pushOwned                                                                            api.Function // optional: pq_push_owned
	tighten                                                                              api.Function // optional: pq_tighten
	errorKind                                                                            api.Function // optional: pq_error_kind
	tableFields                                                                          api.Function // optional: pq_table_fields

	buf    uint32 // reusable pq_alloc buffer for pushes (0: none)
	bufLen uint32
	stack  [5]uint64
	dead   bool
}

func newInstance(mod api.Module, stderr *capture, limit uint32) (*instance, error) {
	in := &instance{mod: mod, mem: mod.Memory(), stderr: stderr, limit: limit}
	if in.mem == nil {
		return nil, fmt.Errorf("%w: the module exports no memory", ErrABI)
	}
	for _, e := range []struct {
		name string
		f    *api.Function
	}{
		{"pq_alloc", &in.alloc}, {"pq_free", &in.free}, {"pq_open", &in.open}, {"pq_next", &in.next},
		{"pq_ranges", &in.ranges}, {"pq_ipc", &in.ipc}, {"pq_push", &in.push},
		{"pq_set_size", &in.setSize}, {"pq_report", &in.report}, {"pq_error", &in.errorFn},
		{"pq_close", &in.closeFn}, {"pq_debug", &in.debug},
		{"pq_schema", &in.schema}, {"pq_metadata", &in.metadata},
	} {
		if *e.f = mod.ExportedFunction(e.name); *e.f == nil {
			return nil, fmt.Errorf("%w: the module does not export %s", ErrABI, e.name)
		}
	}
	// Table sessions are optional: the lean module (single files) has none, and a host that
	// runs it fails a table open with ErrABI.
	in.openTable = mod.ExportedFunction("pq_open_table")
	in.pushFile = mod.ExportedFunction("pq_push_file")
	in.setFileSize = mod.ExportedFunction("pq_set_file_size")
	if (in.openTable == nil) != (in.pushFile == nil) || (in.openTable == nil) != (in.setFileSize == nil) {
		return nil, fmt.Errorf("%w: the module exports only some of pq_open_table, pq_push_file, pq_set_file_size", ErrABI)
	}
	in.pushOwned = mod.ExportedFunction("pq_push_owned")
	in.tighten = mod.ExportedFunction("pq_tighten")
	in.errorKind = mod.ExportedFunction("pq_error_kind")
	in.tableFields = mod.ExportedFunction("pq_table_fields")
	v := mod.ExportedFunction("pq_abi_version")
	if v == nil {
		return nil, fmt.Errorf("%w: the module does not export pq_abi_version", ErrABI)
	}
	res, err := v.Call(context.Background())
	if err != nil {
		return nil, err
	}
	if int32(res[0]) != abiVersion {
		return nil, fmt.Errorf("%w: module ABI version %d, host speaks %d", ErrABI, int32(res[0]), abiVersion)
	}
	return in, nil
}

// call runs one export with at most 5 params and one result, without allocating.
func (in *instance) call(ctx context.Context, f api.Function, name string, args ...uint64) (uint64, error) {
	if in.dead {
		return 0, fmt.Errorf("%w: %s on a discarded instance", ErrClosed, name)
	}
	// Without Config.InterruptGuest wazero never looks at ctx: a done context is seen here,
	// before the guest runs, and the instance stays usable (no call was interrupted).
	if ctx.Err() != nil {
		return 0, fmt.Errorf("wazerohost: %s not started: %w", name, context.Cause(ctx))
	}
	stack := in.stack[:max(len(args), 1)]
	copy(stack, args)
	if err := f.CallWithStack(ctx, stack); err != nil {
		in.kill()
		return 0, in.callErr(ctx, name, err)
	}
	return stack[0], nil
}

// callErr explains why a call failed: the caller's context, memory exhaustion, or a trap.
func (in *instance) callErr(ctx context.Context, name string, err error) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeContextCanceled, sys.ExitCodeDeadlineExceeded:
			cause := context.Cause(ctx)
			if cause == nil {
				cause = context.DeadlineExceeded
				if exit.ExitCode() == sys.ExitCodeContextCanceled {
					cause = context.Canceled
				}
			}
			return fmt.Errorf("wazerohost: %s interrupted: %w", name, cause)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("wazerohost: %s interrupted: %w", name, context.Cause(ctx))
	}
	// wazero appends the wasm stack trace to the trap's message: keep the first line, and the
	// guest's own explanation from stderr.
	trap, msg := firstLine(err.Error()), firstLine(in.stderr.String())
	if strings.Contains(msg, "out of memory") {
		return fmt.Errorf("%w: %w: %s with a cap of %d MiB: %s: %s",
			ErrTrap, ErrOutOfMemory, name, in.limit/16, trap, msg)
	}
	if msg != "" {
		return fmt.Errorf("%w in %s: %s: %s", ErrTrap, name, trap, msg)
	}
	return fmt.Errorf("%w in %s: %s", ErrTrap, name, trap)
}

func (in *instance) kill() {
	in.dead = true
	_ = in.mod.Close(context.Background())
}

// read copies n bytes at ptr out of the module: a view would go stale at the next call.
func (in *instance) read(ptr, n uint32) ([]byte, error) {
	b, ok := in.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: result [%#x, +%d) outside memory of %d bytes", ErrABI, ptr, n, in.mem.Size())
	}
	return append([]byte(nil), b...), nil
}

// view returns the bytes of a ptr<<32|len result without copying; valid until the next call.
func (in *instance) view(v uint64) ([]byte, bool) {
	if v == 0 {
		return nil, true
	}
	return in.mem.Read(uint32(v>>32), uint32(v))
}

// buffer calls a buffer-returning export and copies the result out.
func (in *instance) buffer(ctx context.Context, f api.Function, name string, h int32) ([]byte, error) {
	v, err := in.call(ctx, f, name, api.EncodeI32(h))
	if err != nil {
		return nil, err
	}
	if v == fail64 {
		return nil, in.failure(ctx, name, h, ErrABI)
	}
	b, ok := in.view(v)
	if !ok {
		return nil, fmt.Errorf("%w: %s result %#x outside memory", ErrABI, name, v)
	}
	return append([]byte(nil), b...), nil
}

// failure builds the error for a failed status, with the module's message for handle h.
func (in *instance) failure(ctx context.Context, name string, h int32, kind error) error {
	v, err := in.call(ctx, in.errorFn, "pq_error", api.EncodeI32(h))
	if err != nil {
		return err
	}
	msg := "(no message)"
	if b, ok := in.view(v); ok && v != fail64 && len(b) > 0 {
		msg = string(b)
	}
	// The engine's classification (a module without pq_error_kind gives none): wrapped
	// with the message, so that errors.Is answers as for the native engine's error.
	ek := protocol.ErrOther
	if in.errorKind != nil {
		k, err := in.call(ctx, in.errorKind, "pq_error_kind", api.EncodeI32(h))
		if err != nil {
			return err
		}
		ek = protocol.ErrorKind(uint8(k))
		if int32(k) < 0 || int32(k) > 0xff {
			ek = protocol.ErrOther
		}
	}
	if kind == ErrScan {
		return errkind.Wrap(fmt.Errorf("%w: %s", kind, msg), ek)
	}
	return errkind.Wrap(fmt.Errorf("%w: %s: %s", kind, name, msg), ek)
}

// write copies b into a pq_alloc buffer (reused and grown as needed) and returns its pointer.
func (in *instance) write(ctx context.Context, b []byte) (uint32, error) {
	if uint32(len(b)) > in.bufLen || in.buf == 0 {
		if in.buf != 0 {
			if _, err := in.call(ctx, in.free, "pq_free", api.EncodeU32(in.buf)); err != nil {
				return 0, err
			}
			in.buf, in.bufLen = 0, 0
		}
		n := max(uint32(len(b)), 64<<10)
		p, err := in.call(ctx, in.alloc, "pq_alloc", api.EncodeU32(n))
		if err != nil {
			return 0, err
		}
		if uint32(p) == 0 {
			return 0, in.failure(ctx, "pq_alloc", 0, ErrABI)
		}
		in.buf, in.bufLen = uint32(p), n
	}
	if !in.mem.Write(in.buf, b) {
		return 0, fmt.Errorf("%w: pq_alloc buffer %#x outside memory", ErrABI, in.buf)
	}
	return in.buf, nil
}

// writeOwned copies b into a new pq_alloc buffer for pq_push_owned, which hands the buffer
// to the engine (it is never freed here).
func (in *instance) writeOwned(ctx context.Context, b []byte) (uint32, error) {
	p, err := in.call(ctx, in.alloc, "pq_alloc", api.EncodeU32(uint32(len(b))))
	if err != nil {
		return 0, err
	}
	if uint32(p) == 0 {
		return 0, in.failure(ctx, "pq_alloc", 0, ErrABI)
	}
	if !in.mem.Write(uint32(p), b) {
		return 0, fmt.Errorf("%w: pq_alloc buffer %#x outside memory", ErrABI, uint32(p))
	}
	return uint32(p), nil
}

// status checks an i32 status result.
func (in *instance) status(ctx context.Context, name string, h int32, v uint64) error {
	if rc := int32(v); rc < 0 {
		return in.failure(ctx, name, h, ErrABI)
	}
	return nil
}

// capture keeps the first bytes the guest writes to stderr: a Go runtime crash message
// ("fatal error: out of memory", then goroutine dumps) that explains a trap.
type capture struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
