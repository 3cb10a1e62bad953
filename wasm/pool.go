package main

import "sort"

// pushPool recycles the buffers a host handed to closed sessions with pq_push_owned, so that
// pq_alloc for the next scan's pushes returns memory that needs neither a fresh allocation nor
// zeroing, and Go's collector has no garbage to collect for them. Profiling back-to-back
// `value` scans in V8 put the fresh zeroed push buffers and the collector's assists at about 7%
// of the time.
//
// Why the release signal is the session's end, not the cache dropping a piece: slices the
// cache hands out alias the pushed bytes and are allowed to outlive the piece (decoded PLAIN
// values, dictionary pages, a footer's statistics), so "no longer in the cache" does not mean
// "no longer referenced". When a session is closed nothing of it is reachable any more, except
// what it gave to the instance's footer cache; a scanner reports that
// (scan.Scanner.SharesPushedBytes), and such a session's buffers are left to the collector.
// Sessions of other kinds (tables, Delta) copy their pushes and are never recycled.
type pushPool struct {
	free  [][]byte // full-capacity buffers, sorted by capacity
	bytes int      // total capacity held
	hits  int      // requests served from the pool (tests check that it is used)
}

// pushPoolMax bounds what the pool keeps between scans: wasm memory never shrinks, and the
// pooled bytes are held even while the instance is idle. 32 MiB holds a `value` scan of the
// 4M-row events file (about 12 MiB of pushes) with room; larger scans recycle the first
// 32 MiB of their pushes and leave the rest to the collector.
const pushPoolMax = 32 << 20

// pushPoolMin is the smallest request served from the pool: small buffers (options, WHERE
// texts) are cheap to allocate and would only fragment it.
const pushPoolMin = 4 << 10

// get returns a pooled buffer of at least n bytes, at most twice n (so that a small request
// does not pin a large buffer), with length n; nil when there is none.
func (p *pushPool) get(n int) []byte {
	if n < pushPoolMin {
		return nil
	}
	i := sort.Search(len(p.free), func(i int) bool { return cap(p.free[i]) >= n })
	if i == len(p.free) || cap(p.free[i]) > 2*n {
		return nil
	}
	b := p.free[i]
	p.free = append(p.free[:i], p.free[i+1:]...)
	p.bytes -= cap(b)
	p.hits++
	return b[:n]
}

// put takes back buffers nothing references any more (the caller's promise), as long as the
// pool stays within pushPoolMax; the others are dropped for the collector.
func (p *pushPool) put(bufs [][]byte) {
	for _, b := range bufs {
		c := cap(b)
		if c < pushPoolMin || p.bytes+c > pushPoolMax {
			continue
		}
		b = b[:c]
		i := sort.Search(len(p.free), func(i int) bool { return cap(p.free[i]) >= c })
		p.free = append(p.free, nil)
		copy(p.free[i+1:], p.free[i:])
		p.free[i] = b
		p.bytes += c
	}
}

// pushedBytesSharer is implemented by sessions that can tell whether their pushed bytes are
// referenced beyond their lifetime (scan.Scanner).
type pushedBytesSharer interface{ SharesPushedBytes() bool }

// recycle hands a closing session's owned push buffers to the pool when nothing outside the
// session can still point into them.
func (m *module) recycle(s *session) {
	owned := s.owned
	s.owned = nil
	if sh, ok := s.sc.(pushedBytesSharer); ok && !sh.SharesPushedBytes() {
		m.pool.put(owned)
	}
}
