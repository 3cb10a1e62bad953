//go:build wasm

package main

import "unsafe"

// addrOf returns the linear-memory address of b's first byte. Go's garbage collector does not
// move objects, so the address stays valid while b is reachable (module.go keeps it so).
func addrOf(b []byte) uint32 {
	if cap(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))))
}
