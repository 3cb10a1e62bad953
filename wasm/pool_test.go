//go:build !wasm

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// poolScan is one session driven the way a host drives it, one pq_next at a time, so that the
// test can interleave sessions on one instance.
type poolScan struct {
	file  []byte
	h     int32
	owned bool // pq_push_owned (recycled buffers) or pq_push (the copying oracle)
	piece int  // > 0: each range is pushed in pieces of this many bytes (many buffers per session)
	out   bytes.Buffer
	done  bool
}

// hostAlloc is pq_alloc as a careless host sees it: before writing its bytes it scribbles over
// the whole buffer, as a host reusing memory the engine still read would.
func hostAlloc(t *testing.T, b []byte) int32 {
	t.Helper()
	p := pqAlloc(int32(len(b)))
	require.True(t, p != 0, "pq_alloc failed")
	m := fakeMem[uint32(p)]
	for i := range m {
		m[i] = 0xa5
	}
	copy(m, b)
	return p
}

func openPoolScan(t *testing.T, file []byte, key string, owned bool) *poolScan {
	t.Helper()
	opts := fmt.Sprintf(`{"fileSize":%d}`, len(file))
	if key != "" {
		opts = fmt.Sprintf(`{"fileSize":%d,"fileKey":%q}`, len(file), key)
	}
	op := hostAlloc(t, []byte(opts))
	h := pqOpen(op, int32(len(opts)))
	require.True(t, h > 0, "open", errMsg(t, 0))
	require.Equal(t, codeOK, pqFree(op))
	return &poolScan{file: file, h: h, owned: owned}
}

// step advances the scan by one pq_next and answers it; the output (batches, then the error
// or the end) accumulates in out.
func (s *poolScan) step(t *testing.T) {
	t.Helper()
	switch k := pqNext(s.h); k {
	case 1, 8:
		r := result(t, pqRanges(s.h))
		for i := 0; i+16 <= len(r); i += 16 {
			off := int64(binary.LittleEndian.Uint64(r[i:]))
			n := int64(binary.LittleEndian.Uint64(r[i+8:]))
			end := min(off+n, int64(len(s.file)))
			for lo := off; lo < end; {
				hi := end
				if s.piece > 0 {
					hi = min(end, lo+int64(s.piece))
				}
				p := hostAlloc(t, s.file[lo:hi])
				if s.owned {
					pqPushOwned(s.h, lo, p, int32(hi-lo))
				} else {
					pqPush(s.h, lo, p, int32(hi-lo))
					pqFree(p)
				}
				lo = hi
			}
		}
	case 2:
		s.out.Write(result(t, pqIPC(s.h)))
	case 3, 4:
		if k == 4 {
			s.out.WriteString("error: " + errMsg(t, s.h))
		}
		s.done = true
		require.Equal(t, codeOK, pqClose(s.h))
	default:
		t.Fatalf("pq_next: kind %d", k)
	}
}

// Test_pushBuffersRecycled is a differential test of buffer reuse: corpus files scanned on one
// instance with pq_push_owned, two or three sessions interleaved step by step, half of them with a
// fileKey (so that the footer cache keeps bytes of their pushes), half pushing each range in
// 4 KiB pieces (many buffers per session), every pq_alloc buffer scribbled
// over before the host writes into it, must give exactly the output of each file scanned alone
// on a fresh instance with the copying pq_push. A buffer handed out while anything still pointed
// into it (a live session, a decoded value, a cached footer) would change an output.
func Test_pushBuffersRecycled(t *testing.T) {
	var files []string
	for _, f := range testcorpus.Files(t, ".parquet") {
		if !strings.Contains(f, "encrypt") && !strings.Contains(f, "large") {
			files = append(files, f)
		}
	}
	data := map[string][]byte{}
	want := map[string]string{}
	for _, f := range files {
		b := testcorpus.Read(t, f)
		if len(b) > 4<<20 {
			continue
		}
		data[f] = b
		fresh(t)
		s := openPoolScan(t, b, "", false)
		for !s.done {
			s.step(t)
		}
		want[f] = s.out.String()
	}
	files = files[:0]
	for f := range want {
		files = append(files, f)
	}
	slices.Sort(files) // the same order every run: the seeded interleaving below is then reproducible
	fresh(t)
	rng := rand.New(rand.NewPCG(14, 8))
	var live []*poolScan
	names := map[*poolScan]string{}
	// Three rounds; more (up to six) while the pool has served too few buffers to test anything:
	// the lean module's scans of files with codecs it leaves out end at their footer.
	for round := 0; round < 3 || mod.pool.hits <= 500 && round < 6; round++ {
		order := rng.Perm(len(files))
		for len(order) > 0 || len(live) > 0 {
			if len(order) > 0 && (len(live) < 3 && rng.IntN(2) == 0 || len(live) == 0) {
				f := files[order[0]]
				order = order[1:]
				key := ""
				if rng.IntN(2) == 0 {
					key = f // same file, same key: later sessions start from the cached footer
				}
				s := openPoolScan(t, data[f], key, true)
				if rng.IntN(2) == 0 {
					s.piece = pushPoolMin // the smallest pooled size: many recycled buffers per session
				}
				names[s] = f
				live = append(live, s)
				continue
			}
			i := rng.IntN(len(live))
			s := live[i]
			s.step(t)
			if s.done {
				require.Equal(t, want[names[s]], s.out.String(), names[s], "round", round)
				live = append(live[:i], live[i+1:]...)
			}
		}
	}
	require.True(t, mod.pool.hits > 500, "the pool served too few buffers to test anything:", mod.pool.hits)
}

// Test_pushPool: best fit within twice the size, small requests never pooled, the bound held.
func Test_pushPool(t *testing.T) {
	var p pushPool
	k := 1024
	p.put([][]byte{make([]byte, 8*k), make([]byte, 100), make([]byte, 20*k), make([]byte, 5*k, 16*k)})
	require.Equal(t, 44*k, p.bytes) // the 100-byte buffer was not kept
	require.Equal(t, 0, len(p.get(1*k)))
	b := p.get(7 * k)
	require.Equal(t, 7*k, len(b))
	require.Equal(t, 8*k, cap(b))
	require.Equal(t, 0, len(p.get(5*k))) // 16 KiB > 2×5 KiB
	require.Equal(t, 16*k, cap(p.get(10*k)))
	require.Equal(t, 0, len(p.get(30*k)))
	require.Equal(t, 20*k, p.bytes)
	p.put([][]byte{make([]byte, pushPoolMax)})
	require.Equal(t, 20*k, p.bytes) // over the bound: dropped
	require.Equal(t, 2, p.hits)
}
