package wazerohost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// debug calls pq_debug on an instance of h taken from the pool, and gives it back.
func debug(ctx context.Context, h *Host, kind int32, arg int64) (rc int32, in *instance, err error) {
	in, err = h.acquire(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer h.release(in)
	v, err := in.call(ctx, in.debug, "pq_debug", api.EncodeI32(kind), api.EncodeI64(arg))
	return int32(v), in, err
}

// Test_engineErrorCrossesTheBoundary: a file the engine rejects gives the engine's own message,
// identical to the native engine's.
func Test_engineErrorCrossesTheBoundary(t *testing.T) {
	h := newHost(t, Config{})
	tests := []struct {
		name string
		file []byte
	}{
		{name: "too small", file: []byte("PAR1")},
		{name: "not parquet", file: bytes.Repeat([]byte("x"), 100)},
		{name: "bad footer length", file: append(append([]byte("PAR1"), bytes.Repeat([]byte{0}, 20)...), 0xff, 0xff, 0, 0, 'P', 'A', 'R', '1')},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := runNative(t, tc.file, scan.Options{})
			require.True(t, want.err != "", "the native engine accepts it")
			got, err := runWasm(t, h, tc.file, scan.Options{})
			require.ErrorIs(t, err, ErrScan)
			require.Equal(t, want.comparable(), got.comparable())
		})
	}
}

// Test_badWhereMatchesNative: option errors (here a WHERE that does not parse or names no
// column) come back with the native engine's message, and the instance stays usable.
func Test_badWhereMatchesNative(t *testing.T) {
	h := newHost(t, Config{PoolSize: 1})
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_plain.parquet")
	tests := []struct {
		name  string
		where string
	}{
		{name: "syntax", where: "id >"},
		{name: "unknown column", where: "no_such_column = 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := runNative(t, file, scan.Options{Where: tc.where})
			require.True(t, want.err != "", "the native engine accepts it")
			got, err := runWasm(t, h, file, scan.Options{Where: tc.where})
			require.Error(t, err)
			require.Equal(t, want.comparable(), got.comparable())
		})
	}
	got, err := runWasm(t, h, file, scan.Options{})
	require.NoError(t, err)
	require.Equal(t, runNative(t, file, scan.Options{}).comparable(), got.comparable())
	require.Equal(t, int64(1), h.Stats().Instantiated)
}

func Test_poolReusesInstances(t *testing.T) {
	h := newHost(t, Config{PoolSize: 1})
	for range 3 {
		_, err := runWasm(t, h, []byte("PAR1"), scan.Options{})
		require.ErrorIs(t, err, ErrScan)
	}
	require.Equal(t, Stats{Instantiated: 1, Reused: 2}, h.Stats())

	// Two sessions at once need two instances; only PoolSize of them stay idle.
	a, err := h.Start(context.Background(), scan.Options{FileSize: 10})
	require.NoError(t, err)
	b, err := h.Start(context.Background(), scan.Options{FileSize: 10})
	require.NoError(t, err)
	require.True(t, a.(*Session).in != b.(*Session).in, "concurrent sessions share an instance")
	a.Close()
	b.Close()
	require.Equal(t, Stats{Instantiated: 2, Reused: 3, Discarded: 1}, h.Stats())
}

func Test_recoveredPanicKeepsTheInstance(t *testing.T) {
	h := newHost(t, Config{PoolSize: 1})
	rc, in, err := debug(context.Background(), h, 1, 0)
	require.NoError(t, err)
	require.Equal(t, int32(-2), rc)
	require.True(t, !in.dead)
	msg := in.failure(context.Background(), "pq_debug", 0, ErrABI)
	require.ErrorContains(t, msg, "wasm: panic in pq_debug: pq_debug(1, 0) was asked to panic")
	_, err = runWasm(t, h, []byte("PAR1"), scan.Options{})
	require.ErrorIs(t, err, ErrScan)
	require.Equal(t, Stats{Instantiated: 1, Reused: 1}, h.Stats())
}

// Test_trapReplacesInstance: a guest that runs out of memory traps; the instance is discarded
// and the next scan gets a new one that works.
func Test_trapReplacesInstance(t *testing.T) {
	const pages = 1024 // 64 MiB
	h := newHost(t, Config{MemoryLimitPages: pages, PoolSize: 1})
	_, in, err := debug(context.Background(), h, 2, 256<<20)
	require.ErrorIs(t, err, ErrTrap)
	require.ErrorIs(t, err, ErrOutOfMemory)
	require.ErrorContains(t, err, "cap of 64 MiB")
	require.ErrorContains(t, err, "out of memory: cannot allocate 268435456-byte block")
	require.True(t, !strings.Contains(err.Error(), "\n"), "one-line error", err)
	require.True(t, in.dead)
	require.Equal(t, Stats{Instantiated: 1, Discarded: 1}, h.Stats())

	_, err = in.call(context.Background(), in.next, "pq_next", 1)
	require.ErrorIs(t, err, ErrClosed)

	_, err = runWasm(t, h, []byte("PAR1"), scan.Options{})
	require.ErrorIs(t, err, ErrScan)
	require.Equal(t, Stats{Instantiated: 2, Discarded: 1}, h.Stats())
}

// Test_memoryCap: allocations inside the cap succeed and memory stays within it; past it, a
// clear ErrOutOfMemory.
func Test_memoryCap(t *testing.T) {
	tests := []struct {
		name    string
		pages   uint32
		alloc   int64
		wantOOM bool
	}{
		// pages 0: just over the module's declared initial memory (which grows with the code's
		// data), so the module compiles but the Go runtime cannot start in it.
		{name: "runtime cannot start just above the initial memory", pages: 0, alloc: 0, wantOOM: true},
		{name: "fits in 64 MiB", pages: 1024, alloc: 16 << 20},
		{name: "exceeds 64 MiB", pages: 1024, alloc: 80 << 20, wantOOM: true},
		{name: "fits in 256 MiB", pages: 4096, alloc: 160 << 20},
		{name: "exceeds 256 MiB", pages: 4096, alloc: 300 << 20, wantOOM: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.pages == 0 {
				tc.pages = moduleMinPages(t) + 2
			}
			h := newHost(t, Config{MemoryLimitPages: tc.pages, MaxIdleMemory: 1 << 31})
			rc, in, err := debug(context.Background(), h, 2, tc.alloc)
			if tc.wantOOM {
				require.ErrorIs(t, err, ErrOutOfMemory)
				return
			}
			require.NoError(t, err)
			require.Equal(t, int32(0), rc)
			size := in.mem.Size()
			require.True(t, size <= tc.pages*65536 && int64(size) >= tc.alloc, "memory size", size)
		})
	}
}

func Test_deadlineInterruptsGuest(t *testing.T) {
	h := newHost(t, Config{PoolSize: 1, InterruptGuest: true})
	in, err := h.acquire(context.Background()) // instantiating may take longer than the deadline
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// pq_debug 3 spins forever: the call returns at all only because the deadline stopped
	// the guest (go test's own timeout would fail a hang); no duration is measured.
	_, err = in.call(ctx, in.debug, "pq_debug", 3, 0)
	h.release(in)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, in.dead)
	require.Equal(t, int64(1), h.Stats().Discarded)

	in, err = h.acquire(context.Background())
	require.NoError(t, err)
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel2)
	_, err = in.call(ctx2, in.debug, "pq_debug", 3, 0)
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, in.dead)
	h.release(in)
	require.Equal(t, Stats{Instantiated: 2, Discarded: 2}, h.Stats())
}

// Test_deadlineBetweenCalls: without InterruptGuest a done context stops the next call before
// the guest runs, and the instance, never interrupted, stays healthy for the pool.
func Test_deadlineBetweenCalls(t *testing.T) {
	h := newHost(t, Config{PoolSize: 1})
	in, err := h.acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = in.call(ctx, in.debug, "pq_debug", 3, 0) // would spin forever if it ran
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, !in.dead, "instance killed")
	v, err := in.call(context.Background(), in.alloc, "pq_alloc", 16)
	require.NoError(t, err)
	require.True(t, uint32(v) != 0)
	h.release(in)
	require.Equal(t, Stats{Instantiated: 1}, h.Stats())
}

func Test_config(t *testing.T) {
	_, err := New(context.Background(), Config{MemoryLimitPages: 70000, Cache: testCache})
	require.ErrorContains(t, err, "exceeds wasm32")

	_, err = New(context.Background(), Config{Module: []byte("\x00asm junk"), Cache: testCache})
	require.ErrorContains(t, err, "compiling the module")

	// A cap below the module's initial memory is refused when compiling, clearly.
	_, err = New(context.Background(), Config{MemoryLimitPages: 1, Cache: testCache})
	require.ErrorContains(t, err, "over limit of 1 pages")

	// A disk cache directory works and is shared within the process.
	dir := t.TempDir()
	h1 := newHost(t, Config{CacheDir: dir})
	h2 := newHost(t, Config{CacheDir: dir})
	c1, _ := cacheFor(dir)
	c2, _ := cacheFor(dir)
	require.True(t, c1 == c2)
	for _, h := range []*Host{h1, h2} {
		_, err := runWasm(t, h, []byte("PAR1"), scan.Options{})
		require.ErrorIs(t, err, ErrScan)
	}
}

func Test_closedHost(t *testing.T) {
	h := newHost(t, Config{})
	require.NoError(t, h.Close(context.Background()))
	_, err := h.Start(context.Background(), scan.Options{FileSize: 4})
	require.ErrorIs(t, err, ErrClosed)
	require.True(t, errors.Is(h.Close(context.Background()), nil))
}

// lazySource claims success without delivering anything.
type lazySource struct{ size int64 }

func (s lazySource) Size(context.Context) (int64, error) { return s.size, nil }
func (s lazySource) Fetch(context.Context, []httprange.Range, func(int64, []byte) error) error {
	return nil
}
func (s lazySource) Stats() httpclient.Stats { return httpclient.Stats{} }

// Test_stalledScanFails: a Source that delivers fewer bytes than asked must not make the Go
// driver loop forever over the module's session (the module asks again for the same tail).
func Test_stalledScanFails(t *testing.T) {
	h := newHost(t, Config{})
	_, err := runRaw(context.Background(), h, lazySource{size: 1000}, scan.Options{}, func([]byte) error { return nil })
	require.ErrorIs(t, err, drive.ErrStalled)
}

// Test_concurrentScans: one Host serves several goroutines at once, each scan in its own
// instance, with results identical to the native engine's.
func Test_concurrentScans(t *testing.T) {
	h := newHost(t, Config{PoolSize: 2})
	file := testcorpus.Read(t, "parquet-testing/data/alltypes_plain.parquet")
	want := runNative(t, file, scan.Options{}).comparable()
	const n = 6
	errs := make(chan error, n)
	for range n {
		go func() {
			got, err := runWasm(t, h, file, scan.Options{})
			if err == nil && fmt.Sprint(got.comparable()) != fmt.Sprint(want) {
				err = errors.New("result differs from the native engine")
			}
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	st := h.Stats()
	require.Equal(t, int64(n), st.Instantiated+st.Reused)
	require.True(t, st.Instantiated-st.Discarded <= 2, "idle instances beyond PoolSize", st)
}

// moduleMinPages is the embedded module's declared initial memory in 64 KiB pages.
func moduleMinPages(t *testing.T) uint32 {
	t.Helper()
	h := newHost(t, Config{})
	for _, m := range h.compiled.ExportedMemories() {
		return m.Min()
	}
	t.Fatal("the module exports no memory")
	return 0
}
