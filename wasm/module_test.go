//go:build !wasm

package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// These tests call the exported functions natively (addr_other.go fakes linear memory), so
// that the ABI logic is checked without a wasm runtime; wazerohost tests the real module.

func fresh(t *testing.T) {
	t.Helper()
	mod = newModule()
}

// hostWrite mimics a host: pq_alloc, write, return the pointer.
func hostWrite(t *testing.T, b []byte) int32 {
	t.Helper()
	p := pqAlloc(int32(len(b)))
	require.True(t, p != 0, "pq_alloc failed")
	copy(fakeMem[uint32(p)], b)
	return p
}

func result(t *testing.T, v int64) []byte {
	t.Helper()
	require.True(t, v != fail64, "call failed")
	return deref(uint32(uint64(v)>>32), uint32(v))
}

func errMsg(t *testing.T, h int32) string { return string(result(t, pqError(h))) }

func Test_open(t *testing.T) {
	tests := []struct {
		name    string
		opts    string
		wantErr string // "" means a handle
	}{
		{name: "empty options", opts: ""},
		{name: "options", opts: `{"fileSize":100,"columns":["a","b.c"],"where":"x > 3","limit":10}`},
		{name: "unknown field", opts: `{"fileSize":100,"bogus":1}`, wantErr: `unknown field "bogus"`},
		{name: "bad json", opts: `{"fileSize":`, wantErr: "wasm: pq_open: options"},
		{name: "wrong type", opts: `{"fileSize":"big"}`, wantErr: "wasm: pq_open: options"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var p int32
			if tc.opts != "" {
				p = hostWrite(t, []byte(tc.opts))
			}
			h := pqOpen(p, int32(len(tc.opts)))
			if tc.wantErr == "" {
				require.True(t, h > 0, "handle", h, errMsg(t, 0))
				require.Equal(t, codeOK, pqClose(h))
				return
			}
			require.Equal(t, codeErr, h)
			if leanBuild && pqErrorKind(0) == int32(protocol.ErrNeedsFullModule) {
				// Options flatjson does not read: the full module gives the options or the
				// error (encoding/json's, which the full build checks here).
				return
			}
			require.True(t, strings.Contains(errMsg(t, 0), tc.wantErr), errMsg(t, 0))
		})
	}
}

func Test_nextReportsEngineError(t *testing.T) {
	fresh(t)
	h := pqOpen(0, 0)
	require.True(t, h > 0)
	k := pqNext(h)
	want := mod.sessions[h].sc.Next() // the engine's own answer, whatever stage it is at
	require.Equal(t, int32(want.Kind), k)
	if want.Kind == scan.Error {
		require.Equal(t, want.Err.Error(), errMsg(t, h))
		require.Equal(t, want.Err.Error(), errMsg(t, 0)) // also the global error
	}
}

// Test_errorKind: pq_error_kind gives the kind of the failure pq_error describes, for the
// handle and globally; a failure of the call itself has none.
func Test_errorKind(t *testing.T) {
	fresh(t)
	opts := []byte(`{"fileSize":64}`)
	h := pqOpen(hostWrite(t, opts), int32(len(opts)))
	require.True(t, h > 0, errMsg(t, 0))
	require.Equal(t, int32(protocol.ErrOther), pqErrorKind(h))
	require.Equal(t, int32(scan.NeedRanges), pqNext(h))
	junk := make([]byte, 64) // no PAR1 magic
	require.Equal(t, codeOK, pqPush(h, 0, hostWrite(t, junk), int32(len(junk))))
	require.Equal(t, int32(scan.Error), pqNext(h))
	require.True(t, strings.Contains(errMsg(t, h), "not a Parquet file"), errMsg(t, h))
	require.Equal(t, int32(protocol.ErrNotParquet), pqErrorKind(h))
	require.Equal(t, int32(protocol.ErrNotParquet), pqErrorKind(0))
	require.Equal(t, int32(-1), pqNext(99)) // unknown handle: the module's latest failure, no kind
	require.Equal(t, int32(protocol.ErrOther), pqErrorKind(0))
	require.Equal(t, int32(protocol.ErrNotParquet), pqErrorKind(h))
}

func Test_invalidCalls(t *testing.T) {
	fresh(t)
	h := pqOpen(0, 0)
	p := hostWrite(t, make([]byte, 8))
	tests := []struct {
		name    string
		call    func() int64
		want    int64
		wantErr string
	}{
		{name: "next unknown handle", call: func() int64 { return int64(pqNext(99)) }, want: -1, wantErr: "pq_next: unknown handle 99"},
		{name: "ranges unknown handle", call: func() int64 { return pqRanges(99) }, want: fail64, wantErr: "pq_ranges: unknown handle"},
		{name: "ipc unknown handle", call: func() int64 { return pqIPC(-3) }, want: fail64, wantErr: "pq_ipc: unknown handle -3"},
		{name: "report unknown handle", call: func() int64 { return pqReport(0) }, want: fail64, wantErr: "pq_report: unknown handle 0"},
		{name: "close unknown handle", call: func() int64 { return int64(pqClose(7)) }, want: -1, wantErr: "pq_close: unknown handle 7"},
		{name: "push foreign pointer", call: func() int64 { return int64(pqPush(h, 0, p+1, 4)) }, want: -1, wantErr: "was not returned by pq_alloc"},
		{name: "push past buffer", call: func() int64 { return int64(pqPush(h, 0, p, 9)) }, want: -1, wantErr: "length 9 exceeds the 8-byte buffer"},
		{name: "push negative length", call: func() int64 { return int64(pqPush(h, 0, p, -1)) }, want: -1, wantErr: "negative length"},
		{name: "push owned foreign pointer", call: func() int64 { return int64(pqPushOwned(h, 0, p+1, 4)) }, want: -1, wantErr: "pq_push_owned: 0x"},
		{name: "push owned past buffer", call: func() int64 { return int64(pqPushOwned(h, 0, p, 9)) }, want: -1, wantErr: "length 9 exceeds the 8-byte buffer"},
		{name: "push owned unknown handle", call: func() int64 { return int64(pqPushOwned(99, 0, hostWrite(t, []byte{1}), 1)) }, want: -1, wantErr: "pq_push_owned: unknown handle 99"},
		{name: "alloc negative", call: func() int64 { return int64(pqAlloc(-5)) }, want: 0, wantErr: "negative size -5"},
		{name: "free twice", call: func() int64 { pqFree(hostWrite(t, []byte{1})); return int64(pqFree(p + 1)) }, want: -1, wantErr: "pq_free"},
		{name: "debug unknown action", call: func() int64 { return int64(pqDebug(42, 0)) }, want: -1, wantErr: "unknown action 42"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.call())
			require.True(t, strings.Contains(errMsg(t, 0), tc.wantErr), errMsg(t, 0))
		})
	}
}

func Test_panicIsRecovered(t *testing.T) {
	fresh(t)
	require.Equal(t, codePanic, pqDebug(debugPanic, 7))
	msg := errMsg(t, 0)
	require.True(t, strings.HasPrefix(msg, "wasm: panic in pq_debug: pq_debug(1, 7) was asked to panic"), msg)
	require.True(t, len(msg) <= maxPanicMsg+200, "bounded message", len(msg))
	// The module keeps working after a recovered panic.
	require.True(t, pqOpen(0, 0) > 0)
}

func Test_panicPoisonsSession(t *testing.T) {
	fresh(t)
	h := pqOpen(0, 0)
	mod.sessions[h].sc = nil // the next call into the scanner dereferences nil and panics
	require.Equal(t, int32(scan.Error), pqNext(h))
	first := errMsg(t, h)
	require.True(t, strings.HasPrefix(first, "wasm: panic in pq_next:"), first)
	// The handle stays failed with the same message.
	require.Equal(t, int32(scan.Error), pqNext(h))
	require.Equal(t, first, errMsg(t, h))
	require.Equal(t, codeErr, pqPush(h, 0, 0, 0))
	require.Equal(t, codeErr, pqSetSize(h, 10))
	require.Equal(t, first, errMsg(t, 0))
	require.Equal(t, codeOK, pqClose(h))
}

// Test_pushOwned: pq_push_owned hands the buffer to the engine and takes it out of the
// allocation table, even when the push fails, so the host never frees it; pq_push leaves the
// buffer to the host. (That the engine keeps the very bytes is scan's Test_pushOwnedKeepsBytes.)
func Test_pushOwned(t *testing.T) {
	fresh(t)
	opts := []byte(`{"fileSize": 10}`)
	op := hostWrite(t, opts)
	h := pqOpen(op, int32(len(opts)))
	require.True(t, h > 0, "open", errMsg(t, 0))
	require.Equal(t, codeOK, pqFree(op))

	p := hostWrite(t, []byte("abcd"))
	require.Equal(t, codeOK, pqPushOwned(h, 2, p, 4))
	require.Equal(t, 0, len(mod.allocs))
	require.Equal(t, codeErr, pqFree(p)) // the engine's now

	q := hostWrite(t, []byte("xyz"))
	require.Equal(t, codeOK, pqPush(h, 6, q, 3))
	require.Equal(t, 1, len(mod.allocs)) // pq_push: still the host's
	require.Equal(t, codeOK, pqFree(q))

	bad := hostWrite(t, []byte("0123456789ab"))
	require.Equal(t, codeErr, pqPushOwned(h, 0, bad, 12)) // past the 10-byte file
	require.True(t, strings.Contains(errMsg(t, h), "outside the file"), errMsg(t, h))
	require.Equal(t, 0, len(mod.allocs))
	require.Equal(t, int64(7), mod.sessions[h].sc.Report().BytesPushed)
}

func Test_allocFree(t *testing.T) {
	fresh(t)
	p := pqAlloc(0)
	require.True(t, p != 0, "a zero-size allocation still has an address")
	q := pqAlloc(100)
	require.True(t, p != q)
	require.Equal(t, 2, len(mod.allocs))
	require.Equal(t, codeOK, pqFree(p))
	require.Equal(t, codeOK, pqFree(q))
	require.Equal(t, 0, len(mod.allocs))
}

func Test_reportIsJSON(t *testing.T) {
	fresh(t)
	h := pqOpen(0, 0)
	var r scan.Report
	require.NoError(t, json.Unmarshal(result(t, pqReport(h)), &r))
	require.Equal(t, mod.sessions[h].sc.Report(), r)
}

func Test_packResult(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{name: "empty", b: nil},
		{name: "bytes", b: []byte("hello")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := packResult(tc.b)
			if len(tc.b) == 0 {
				require.Equal(t, int64(0), v)
				return
			}
			require.Equal(t, tc.b, result(t, v))
		})
	}
}

// The collector's goal stays at heapFloor while the live heap is small, and is Go's default
// (GOGC=100) once the live heap is half the floor or more; retuneGC changes it only after a
// collection.
func Test_gcFloor(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	defer func() { gcFloor.on = false }()
	runtime.GC() // no cycle in flight when the floor starts
	startGCFloor()
	require.Equal(t, maxGCPercent, debug.SetGCPercent(maxGCPercent))
	retuneGC() // no collection since: unchanged
	require.Equal(t, maxGCPercent, debug.SetGCPercent(maxGCPercent))

	live := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	big := make([]byte, 30<<20)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.GC()
	require.True(t, live() >= 30<<20, "live heap with the 30 MB slice")
	retuneGC()
	require.Equal(t, 100, debug.SetGCPercent(100), "a live heap over half the floor: the default")
	runtime.KeepAlive(big)

	big = nil
	runtime.GC()
	l := live()
	require.True(t, l < heapFloor/2, "the test's own live heap: %d", l)
	retuneGC()
	p := debug.SetGCPercent(100)
	require.True(t, p > 100, "GOGC %d for live %d", p, l)
	goal := l * uint64(100+p) / 100
	require.True(t, goal <= heapFloor, "goal %d: live %d, GOGC %d", goal, l, p)
	if p < maxGCPercent {
		require.True(t, goal > heapFloor-l/50, "goal %d: live %d, GOGC %d", goal, l, p)
	}
}

func Test_gcPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, maxGCPercent},
		{4 << 20, maxGCPercent},
		{6 << 20, 500},
		{12 << 20, 200},
		{heapFloor/2 - 1, 100}, // 100*floor/live - 100 rounds down to 100
		{heapFloor / 2, 100},
		{heapFloor, 100},
		{1 << 30, 100},
	} {
		require.Equal(t, tc.want, gcPercentFor(tc.live), "live %d", tc.live)
	}
}
