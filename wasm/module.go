package main

import (
	"encoding/binary"
	"errors"
	"runtime/debug"
	"time"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/errkind"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

// abiVersion is returned by pq_abi_version. Adding an export does not change it (hosts detect
// new exports by name); changing the meaning or signature of an existing one does.
const abiVersion = 1

// Status codes of the i32 exports that return no data (see ABI.md). Handles are > 0, step kinds
// are 1..5, so every failure is ≤ 0.
const (
	codeOK    int32 = 0
	codeErr   int32 = -1 // the call failed; pq_error gives the message
	codePanic int32 = -2 // a panic was recovered; pq_error gives the message
)

// fail64 is the i64 result meaning "failed" (all bits set): no real ptr<<32|len has it, since a
// buffer cannot end past 4 GiB.
const fail64 int64 = -1

// maxPanicMsg bounds the stack trace appended to a recovered panic's message.
const maxPanicMsg = 4 << 10

// session is one open scan and the results of its last step. The slices it holds are what the
// host reads through returned ptr/len pairs; holding them here keeps them alive (and at a fixed
// address, Go's collector does not move objects) until the next call replaces them.
type session struct {
	sc      engineSession // a *scan.Scanner, or a *tablescan.Table (pq_open_table, table.go)
	step    scan.Step
	ranges  []byte             // packed little-endian i64 pairs of the last NeedRanges (triples for NeedData)
	meta    []byte             // the JSON of the last Metadata step (pq_metadata)
	out     []byte             // the last pq_report / pq_schema / pq_error result
	errMsg  string             // the handle's latest failure, returned by pq_error(h)
	errKind protocol.ErrorKind // errMsg's kind, returned by pq_error_kind(h)
	poison  string             // set after a recovered panic: the scanner's state is unknown, so it stays failed
	owned   [][]byte           // the pq_push_owned buffers, recycled when the session closes (pool.go)
}

// engineSession is what a handle drives: the protocol plus the schema and the owned push.
type engineSession interface {
	scan.Session
	Schema() ([]byte, error)
	PushOwned(off int64, b []byte) error
}

// module is the state of one instance: open sessions, host-owned allocations, and the global
// error message. Wasm exports run one at a time, so no locking is needed.
type module struct {
	sessions map[int32]*session
	next     int32
	// allocs keeps every buffer handed out by pq_alloc reachable (the host writes into it
	// between calls, when no Go pointer refers to it) until pq_free.
	allocs   map[uint32][]byte
	lastErr  string
	lastKind protocol.ErrorKind
	errOut   []byte
	// footers keeps decoded footers for sessions opened with a fileKey (scan.Options.FileKey),
	// so that a host's open, explain and scans of one file cost one tail read and one decode.
	footers *scan.FooterCache
	pool    pushPool // closed sessions' push buffers, for pq_alloc (pool.go)
}

// footerCacheBytes bounds the instance's footer cache: wasm memory never shrinks, so the cache
// is kept small next to the default 256 MiB memory cap of one scan.
const footerCacheBytes = 16 << 20

var mod = newModule()

func newModule() *module {
	return &module{sessions: map[int32]*session{}, allocs: map[uint32][]byte{}, footers: scan.NewFooterCache(footerCacheBytes)}
}

// fail records msg as the global error and, when s is not nil, as the handle's error, with no
// kind (a failure of the call itself, not one of the engine's sentinels).
func (m *module) fail(s *session, msg string) {
	m.failKind(s, msg, protocol.ErrOther)
}

// failErr is fail for an error of the engine: its kind goes with its message (pq_error_kind),
// so that a host classifies it as the native engine's sentinels do.
func (m *module) failErr(s *session, err error) {
	m.failKind(s, err.Error(), errkind.Of(err))
}

func (m *module) failKind(s *session, msg string, k protocol.ErrorKind) {
	m.lastErr, m.lastKind = msg, k
	if s != nil {
		s.errMsg, s.errKind = msg, k
	}
}

func (m *module) session(fn string, h int32) (*session, bool) {
	s, ok := m.sessions[h]
	if !ok {
		m.fail(nil, errf.Sprintf("wasm: %s: unknown handle %d", fn, h))
	}
	return s, ok
}

// poisoned reports (and records as the failure) a session that a recovered panic left failed.
func (m *module) poisoned(s *session) bool {
	if s.poison == "" {
		return false
	}
	m.fail(s, s.poison)
	return true
}

// recovered turns a panic value into an error message (with a bounded stack) and poisons the
// session it happened in: a scanner interrupted mid-step may hold a half-updated state.
func (m *module) recovered(fn string, h int32, r any) {
	stack := debug.Stack()
	if len(stack) > maxPanicMsg {
		stack = stack[:maxPanicMsg]
	}
	msg := errf.Sprintf("wasm: panic in %s: %v\n%s", fn, r, stack)
	s := m.sessions[h]
	if s != nil {
		s.poison = msg
	}
	m.fail(s, msg)
}

// alloc returns a new host-writable buffer of n bytes (at least 1, so that it has an address).
func (m *module) alloc(n int32) uint32 {
	if n < 0 {
		m.fail(nil, errf.Sprintf("wasm: pq_alloc: negative size %d", n))
		return 0
	}
	b := m.pool.get(int(n))
	if b == nil {
		b = make([]byte, max(n, 1))
	}
	p := addrOf(b)
	m.allocs[p] = b
	return p
}

func (m *module) free(p uint32) int32 {
	if _, ok := m.allocs[p]; !ok {
		m.fail(nil, errf.Sprintf("wasm: pq_free: %#x was not returned by pq_alloc or was freed", p))
		return codeErr
	}
	delete(m.allocs, p)
	return codeOK
}

// hostBytes returns the n bytes at p, which must lie inside a live pq_alloc buffer starting at p.
// Checking this (rather than trusting any pointer) turns a host bug into an error, not a
// silent read of unrelated memory.
func (m *module) hostBytes(fn string, p uint32, n int32) ([]byte, error) {
	b, ok := m.allocs[p]
	switch {
	case n < 0:
		return nil, errf.Errorf("wasm: %s: negative length %d", fn, n)
	case n == 0:
		return nil, nil
	case !ok:
		return nil, errf.Errorf("wasm: %s: %#x was not returned by pq_alloc or was freed", fn, p)
	case int(n) > len(b):
		return nil, errf.Errorf("wasm: %s: length %d exceeds the %d-byte buffer at %#x", fn, n, len(b), p)
	}
	return b[:n], nil
}

// open parses the options JSON and starts a scan. Unknown fields are an error: a host newer
// than the module must learn that an option is not honoured rather than get different rows.
func (m *module) open(p uint32, n int32) int32 {
	raw, err := m.hostBytes("pq_open", p, n)
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	var opts scan.Options
	if len(raw) > 0 {
		// scan.DecodeOptions: the usual flat objects without reflection (a fresh instance's
		// first open is on every cold page's first query), anything else by encoding/json.
		if opts, err = scan.DecodeOptions(raw); err != nil {
			// The kind: the lean module sends options it cannot read to the full one.
			m.failKind(nil, "wasm: pq_open: options: "+err.Error(), errkind.Of(err))
			return codeErr
		}
	}
	sc, err := scan.NewCached(opts, m.footers)
	if err != nil {
		m.failErr(nil, err)
		return codeErr
	}
	sc.SetClock(time.Now) // the hosts give the guest real clocks; the report shows phase timings
	return m.add(sc)
}

// add registers a new session and returns its handle.
func (m *module) add(sc engineSession) int32 {
	for {
		m.next++
		if m.next <= 0 { // wrapped after 2^31 opens: handles stay positive
			m.next = 1
		}
		if _, used := m.sessions[m.next]; !used {
			break
		}
	}
	m.sessions[m.next] = &session{sc: sc}
	return m.next
}

// stepNext advances the scan and keeps the step's data alive for pq_ranges / pq_ipc.
func (m *module) stepNext(h int32) int32 {
	s, ok := m.session("pq_next", h)
	if !ok {
		return codeErr
	}
	s.step, s.ranges, s.out, s.meta = scan.Step{}, s.ranges[:0], nil, nil
	if m.poisoned(s) {
		return int32(scan.Error)
	}
	s.step = s.sc.Next()
	switch s.step.Kind {
	case scan.NeedRanges:
		for _, r := range s.step.Ranges {
			s.ranges = binary.LittleEndian.AppendUint64(s.ranges, uint64(r.Off))
			s.ranges = binary.LittleEndian.AppendUint64(s.ranges, uint64(r.Len))
		}
		if s.step.AsArrived {
			return int32(protocol.NeedRangesAsArrived)
		}
	case scan.NeedData, scan.NeedObjects: // a Delta NeedObjects step may carry checkpoint ranges too
		for _, r := range s.step.Reqs {
			s.ranges = binary.LittleEndian.AppendUint64(s.ranges, uint64(r.File))
			s.ranges = binary.LittleEndian.AppendUint64(s.ranges, uint64(r.Off))
			s.ranges = binary.LittleEndian.AppendUint64(s.ranges, uint64(r.Len))
		}
	case scan.Metadata:
		// Written without encoding/json (see scan.FileInfo.AppendJSON): this is every query's
		// first open, where a fresh instance would run reflect's code for the first time.
		s.meta = s.step.Meta.AppendJSON(nil)
	case scan.Error:
		err := s.step.Err
		if err == nil {
			err = errors.New("scan: error step without an error")
		}
		m.failErr(s, err)
	}
	return int32(s.step.Kind)
}

func (m *module) rangesOf(h int32) int64 {
	s, ok := m.session("pq_ranges", h)
	if !ok {
		return fail64
	}
	return packResult(s.ranges)
}

func (m *module) ipcOf(h int32) int64 {
	s, ok := m.session("pq_ipc", h)
	if !ok {
		return fail64
	}
	return packResult(s.step.IPC)
}

func (m *module) push(h int32, off int64, p uint32, n int32) int32 {
	return m.pushBytes("pq_push", h, off, p, n, false)
}

// pushOwned is push without the copy: the pq_alloc buffer at p becomes the engine's (the
// cache keeps it, or the parts of it that hold bytes it had not seen). It is released from the
// allocation table whatever happens, so the host never frees it, even after an error. The
// engine's cache then holds the only reference, and the garbage collector frees the buffer
// when the cache drops it. Profiling the module in V8 on a 500k-row scan put the copy in
// pq_push at about 8% of the time.
func (m *module) pushOwned(h int32, off int64, p uint32, n int32) int32 {
	return m.pushBytes("pq_push_owned", h, off, p, n, true)
}

func (m *module) pushBytes(fn string, h int32, off int64, p uint32, n int32, owned bool) int32 {
	b, err := m.hostBytes(fn, p, n)
	whole, live := m.allocs[p]
	if owned {
		delete(m.allocs, p) // a no-op for a pointer that is not a live pq_alloc buffer
	}
	s, ok := m.session(fn, h)
	if !ok || m.poisoned(s) {
		return codeErr
	}
	if owned && live {
		s.owned = append(s.owned, whole)
	}
	if err == nil {
		if owned {
			err = s.sc.PushOwned(off, b)
		} else {
			err = s.sc.Push(off, b)
		}
	}
	if err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

// tighten is pq_tighten: the UTF-8 WHERE text at p is ANDed to the scan's predicate for the
// rows not yet read (scan.Scanner.Tighten). A conjunct that does not parse or bind fails the
// call, not the session: the scan goes on as before (the message is in pq_error).
func (m *module) tighten(h int32, p uint32, n int32) int32 {
	b, err := m.hostBytes("pq_tighten", p, n)
	s, ok := m.session("pq_tighten", h)
	if !ok || m.poisoned(s) {
		return codeErr
	}
	if err == nil {
		err = errNoTighten
		if t, ok := s.sc.(scan.Tightener); ok {
			err = t.Tighten(string(b))
		}
	}
	if err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

var errNoTighten = errors.New("wasm: pq_tighten: this session takes no runtime filter (a table or Delta session)")

func (m *module) setSize(h int32, n int64) int32 {
	s, ok := m.session("pq_set_size", h)
	if !ok || m.poisoned(s) {
		return codeErr
	}
	if err := s.sc.SetFileSize(n); err != nil {
		m.failErr(s, err)
		return codeErr
	}
	return codeOK
}

func (m *module) report(h int32) int64 {
	s, ok := m.session("pq_report", h)
	if !ok {
		return fail64
	}
	rep := s.sc.Report()
	b, err := rep.AppendJSON(nil)
	if err != nil {
		m.fail(s, "wasm: pq_report: "+err.Error())
		return fail64
	}
	s.out = b
	return packResult(b)
}

// metadataOf returns the JSON of the Metadata step just returned by pq_next (scan.FileInfo).
func (m *module) metadataOf(h int32) int64 {
	s, ok := m.session("pq_metadata", h)
	if !ok {
		return fail64
	}
	if s.meta == nil {
		m.fail(s, "wasm: pq_metadata: the last step was not Metadata")
		return fail64
	}
	return packResult(s.meta)
}

func (m *module) schema(h int32) int64 {
	s, ok := m.session("pq_schema", h)
	if !ok {
		return fail64
	}
	b, err := s.sc.Schema()
	if err != nil {
		m.failErr(s, err)
		return fail64
	}
	s.out = b
	return packResult(b)
}

// errorKindOf returns the kind of the error errorOf returns.
func (m *module) errorKindOf(h int32) int32 {
	if s, ok := m.sessions[h]; ok {
		return int32(s.errKind)
	}
	return int32(m.lastKind)
}

// errorOf returns handle h's latest error, or the module's latest one when h is not open.
func (m *module) errorOf(h int32) int64 {
	msg := m.lastErr
	if s, ok := m.sessions[h]; ok {
		msg = s.errMsg
	}
	m.errOut = []byte(msg)
	return packResult(m.errOut)
}

func (m *module) closeSession(h int32) int32 {
	s, ok := m.session("pq_close", h)
	if !ok {
		return codeErr
	}
	delete(m.sessions, h)
	m.recycle(s)
	return codeOK
}

// packResult encodes a module-owned buffer as ptr<<32|len.
func packResult(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	return int64(uint64(addrOf(b))<<32 | uint64(uint32(len(b))))
}
