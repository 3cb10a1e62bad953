//go:build !wasm

package main

// On a native build (tests) there is no 32-bit linear memory: addrOf hands out fake addresses
// and records what they point to, so that the ABI logic can be tested without a wasm runtime.
var (
	fakeMem  = map[uint32][]byte{}
	fakeNext uint32
)

func addrOf(b []byte) uint32 {
	if cap(b) == 0 {
		return 0
	}
	for a, m := range fakeMem {
		if cap(m) > 0 && &m[:1][0] == &b[:1][0] {
			return a
		}
	}
	fakeNext += 0x1000
	fakeMem[fakeNext] = b[:cap(b)]
	return fakeNext
}

// deref is the test's view of "linear memory" at ptr.
func deref(ptr, n uint32) []byte { return fakeMem[ptr][:n] }
