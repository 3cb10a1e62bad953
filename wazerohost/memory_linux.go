package wazerohost

import (
	"context"
	"sync"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withLinearMemory makes the instances instantiated with ctx keep their linear memory in a
// reservation of its maximum size (mmap, no swap reserved), which the kernel backs with
// zeroed pages as the guest touches them: growing the memory hands out more of it. wazero's
// own linear memory is a Go slice grown by append, each growth a copy of the whole memory:
// 28% of the CPU of a 4M-row scan (1.1 s of memmove in MemoryInstance.Grow), and every
// instance's memory on the host's Go heap.
func withLinearMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(allocateLinear))
}

// reservations are freed instances' address space, emptied (its pages returned to the
// kernel) and kept for the next instance rather than unmapped: a guest call still running
// on a closed instance (a Host closed during a scan) then reads zeros instead of faulting.
var reservations struct {
	sync.Mutex
	free map[uint64][][]byte // by size
}

func allocateLinear(capBytes, maxBytes uint64) experimental.LinearMemory {
	if b := reserve(maxBytes); b != nil {
		return &mappedMemory{res: b}
	}
	return &sliceMemory{b: make([]byte, 0, capBytes)}
}

func reserve(size uint64) []byte {
	if size == 0 || size > 1<<32 || uint64(int(size)) != size {
		return nil
	}
	reservations.Lock()
	if l := reservations.free[size]; len(l) > 0 {
		b := l[len(l)-1]
		reservations.free[size] = l[:len(l)-1]
		reservations.Unlock()
		return b
	}
	reservations.Unlock()
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return b
}

// mappedMemory is a linear memory in a reservation (the guest's bounds checks use the
// length it is given).
type mappedMemory struct {
	res  []byte
	used uint64 // the most handed out
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.res == nil || size > uint64(len(m.res)) {
		return nil
	}
	m.used = max(m.used, size)
	return m.res[:size:size]
}

// Free empties the reservation (MADV_DONTNEED: private anonymous pages read as zeros again)
// and keeps it for the next instance.
func (m *mappedMemory) Free() {
	if m.res == nil {
		return
	}
	if m.used > 0 && syscall.Madvise(m.res[:m.used], syscall.MADV_DONTNEED) != nil {
		_ = syscall.Munmap(m.res) // cannot empty it: give it back whole
		m.res = nil
		return
	}
	reservations.Lock()
	if reservations.free == nil {
		reservations.free = map[uint64][][]byte{}
	}
	size := uint64(len(m.res))
	reservations.free[size] = append(reservations.free[size], m.res)
	reservations.Unlock()
	m.res = nil
}

// sliceMemory is a linear memory on the Go heap, grown by append (as wazero's own): the
// fallback where the address space cannot be reserved.
type sliceMemory struct {
	b []byte
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.b)) {
		m.b = append(m.b[:cap(m.b)], make([]byte, size-uint64(cap(m.b)))...)
	}
	m.b = m.b[:size]
	return m.b
}

func (m *sliceMemory) Free() { m.b = nil }
