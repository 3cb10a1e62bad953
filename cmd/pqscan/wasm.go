package main

import (
	"context"
	"sync"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/wazerohost"
)

// wasmEngine runs scans inside the embedded WebAssembly module through wazero: the same
// module browsers run, sandboxed (memory cap, no filesystem or network in the guest). The
// host is created once per process; wazero compiles the module once (cached on disk).
type wasmEngine struct{ h *wazerohost.Host }

var wasmHost = sync.OnceValues(func() (*wazerohost.Host, error) {
	return wazerohost.New(context.Background(), wazerohost.Config{})
})

func newWasmEngine() (pqscan.Engine, error) {
	h, err := wasmHost()
	if err != nil {
		return nil, err
	}
	return wasmEngine{h}, nil
}

func (e wasmEngine) Start(ctx context.Context, opts scan.Options) (pqscan.Session, error) {
	return e.h.Start(ctx, opts)
}
