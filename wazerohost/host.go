// Package wazerohost runs the pqscan wasm module (embedded, built by `make wasm`) in wazero: it
// compiles the module once (through a compilation cache), keeps a pool of ready instances,
// and drives scans by fetching the ranges the engine asks for through an httpclient.Source
// and pushing the bytes back (wasm/ABI.md).
//
// Why a wasm host in Go at all: it runs exactly the bytes browsers run (the tests compare it
// byte for byte with the native engine), and it sandboxes the parser: a guest gets no files,
// network, environment or clock beyond WASI's, a memory cap, and a deadline (between calls, or
// inside one with Config.InterruptGuest). A guest that
// traps is discarded; results are never silently partial.
//
// Non-goals: speed (link package scan directly for that; the wasm build is several times
// slower), and module builds other than the embedded one (Config.Module exists for tests).
package wazerohost

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Config configures a Host. The zero value is usable.
type Config struct {
	// MemoryLimitPages caps each instance's memory in 64 KiB pages; 0 means 16384 (1 GiB).
	// wasm32 cannot exceed 65536 (4 GiB). A guest that needs more fails with ErrOutOfMemory.
	MemoryLimitPages uint32
	// Cache is the compilation cache; the caller owns it. nil means the CacheDir cache.
	Cache wazero.CompilationCache
	// CacheDir is where compiled code is cached across processes; "" means
	// os.UserCacheDir()/pqscan/wazero (in memory only if there is no user cache directory).
	// Hosts with the same CacheDir in one process share one cache, so the module is compiled
	// at most once per process.
	CacheDir string
	// PoolSize is the number of idle instances kept ready; 0 means GOMAXPROCS. Concurrent
	// scans beyond it create instances that are closed after use.
	PoolSize int
	// MaxIdleMemory: an instance whose memory grew beyond this many bytes is closed after its
	// scan instead of pooled (wasm memory never shrinks); 0 means 256 MiB.
	MaxIdleMemory uint32
	// Stderr receives what the guest writes to stderr (Go runtime crash messages); nil
	// discards it. The first KiB is also kept to explain traps in errors.
	Stderr io.Writer
	// Module replaces the embedded module (tests, other builds); nil means Module().
	Module []byte
	// InterruptGuest makes a deadline or cancellation stop the guest in the middle of an
	// export call, even one stuck in a loop: wazero then compiles a termination check into
	// every loop header and function entry, each a round trip out to Go. That made scans
	// 3–5× slower (BENCHMARKS.md, "wazero"), so it is off by default: a done context is then
	// seen before each export call and between the driver's steps, and a call already running
	// finishes its step (bounded work: at most one batch or one pushed range) before the scan
	// ends with the context's error. Turn it on when an unbounded call is a risk you would
	// rather pay for than take, e.g. a module build other than the embedded one.
	InterruptGuest bool

	// noHostZstd (tests) makes the host answer the module's ZSTD import with "not provided",
	// as a third-party host without a decoder would: the module then fails on the first ZSTD
	// page with codec.ErrNoHostZstd's message.
	noHostZstd bool
}

const (
	defaultMemoryLimitPages = 16384
	maxMemoryLimitPages     = 65536
	defaultMaxIdleMemory    = 256 << 20
	stderrCapture           = 1 << 10
)

// Host compiles the module once and runs scans in pooled instances. It is safe for concurrent
// use; each Scan uses its own instance.
type Host struct {
	cfg      Config
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	pool     chan *instance
	closed   atomic.Bool

	instantiated, reused, discarded atomic.Int64
	hostZstdCalls                   atomic.Int64
}

// Stats counts instance lifecycle events since New.
type Stats struct {
	Instantiated int64 // instances created
	Reused       int64 // scans that got an idle instance from the pool
	Discarded    int64 // instances closed after a trap, a deadline, growth past MaxIdleMemory, or a full pool
	HostZstd     int64 // ZSTD pages the module handed to the host's decoder
}

var dirCaches sync.Map // cache dir → wazero.CompilationCache, shared by the Hosts of a process

func cacheFor(dir string) (wazero.CompilationCache, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			c, _ := dirCaches.LoadOrStore("", wazero.NewCompilationCache())
			return c.(wazero.CompilationCache), nil
		}
		dir = filepath.Join(base, "pqscan", "wazero")
	}
	if c, ok := dirCaches.Load(dir); ok {
		return c.(wazero.CompilationCache), nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, fmt.Errorf("wazerohost: compilation cache %s: %w", dir, err)
	}
	actual, loaded := dirCaches.LoadOrStore(dir, c)
	if loaded {
		_ = c.Close(context.Background())
	}
	return actual.(wazero.CompilationCache), nil
}

// New creates a runtime with the sandbox settings and compiles the module (a cache hit when a
// Host with the same cache compiled it before, in this process or, with a directory cache, in
// an earlier one).
func New(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.MemoryLimitPages == 0 {
		cfg.MemoryLimitPages = defaultMemoryLimitPages
	}
	if cfg.MemoryLimitPages > maxMemoryLimitPages {
		return nil, fmt.Errorf("wazerohost: MemoryLimitPages %d exceeds wasm32's %d", cfg.MemoryLimitPages, maxMemoryLimitPages)
	}
	if cfg.PoolSize <= 0 {
		cfg.PoolSize = runtime.GOMAXPROCS(0)
	}
	if cfg.MaxIdleMemory == 0 {
		cfg.MaxIdleMemory = defaultMaxIdleMemory
	}
	if cfg.Module == nil {
		cfg.Module = moduleWasm
	}
	cache := cfg.Cache
	if cache == nil {
		var err error
		if cache, err = cacheFor(cfg.CacheDir); err != nil {
			return nil, err
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithMemoryLimitPages(cfg.MemoryLimitPages).
		WithCloseOnContextDone(cfg.InterruptGuest). // see Config.InterruptGuest
		WithCompilationCache(cache))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("wazerohost: WASI: %w", err)
	}
	h := &Host{cfg: cfg, rt: rt, pool: make(chan *instance, cfg.PoolSize)}
	if err := h.instantiateHostImports(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("wazerohost: host imports: %w", err)
	}
	compiled, err := rt.CompileModule(ctx, cfg.Module)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("wazerohost: compiling the module: %w", err)
	}
	h.compiled = compiled
	return h, nil
}

// Stats returns the instance counters.
func (h *Host) Stats() Stats {
	return Stats{Instantiated: h.instantiated.Load(), Reused: h.reused.Load(), Discarded: h.discarded.Load(),
		HostZstd: h.hostZstdCalls.Load()}
}

// acquire returns an idle instance or a new one.
func (h *Host) acquire(ctx context.Context) (*instance, error) {
	if h.closed.Load() {
		return nil, ErrClosed
	}
	select {
	case in := <-h.pool:
		h.reused.Add(1)
		return in, nil
	default:
	}
	return h.instantiate(ctx)
}

// instantiate creates an instance with no filesystem, environment, arguments or network; the
// real clocks are given so that the report's phase timings mean something.
func (h *Host) instantiate(ctx context.Context) (*instance, error) {
	stderr := &capture{max: stderrCapture}
	var errw io.Writer = stderr
	if h.cfg.Stderr != nil {
		errw = io.MultiWriter(stderr, h.cfg.Stderr)
	}
	mc := wazero.NewModuleConfig().
		WithName(""). // anonymous: many instances of one compiled module per runtime
		WithStartFunctions("_initialize").
		WithStdout(io.Discard).
		WithStderr(errw).
		WithSysNanotime().
		WithSysWalltime()
	mod, err := h.rt.InstantiateModule(withLinearMemory(ctx), h.compiled, mc)
	if err != nil {
		// _initialize runs the Go runtime's start-up, which itself needs a few MiB.
		dead := &instance{stderr: stderr, limit: h.cfg.MemoryLimitPages, dead: true}
		return nil, dead.callErr(ctx, "_initialize", err)
	}
	in, err := newInstance(mod, stderr, h.cfg.MemoryLimitPages)
	if err != nil {
		_ = mod.Close(ctx)
		return nil, err
	}
	h.instantiated.Add(1)
	return in, nil
}

// release pools a healthy instance or closes it.
func (h *Host) release(in *instance) {
	if in.dead || h.closed.Load() || in.mem.Size() > h.cfg.MaxIdleMemory {
		h.discard(in)
		return
	}
	select {
	case h.pool <- in:
	default:
		h.discard(in)
	}
}

func (h *Host) discard(in *instance) {
	if !in.dead {
		in.kill()
	}
	h.discarded.Add(1)
}

// Close closes idle instances and the runtime; scans still running fail.
func (h *Host) Close(ctx context.Context) error {
	if h.closed.Swap(true) {
		return nil
	}
	for {
		select {
		case in := <-h.pool:
			h.discard(in)
		default:
			return h.rt.Close(ctx)
		}
	}
}
