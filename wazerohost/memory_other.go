//go:build !linux

package wazerohost

import "context"

// withLinearMemory leaves wazero's own linear memory (a Go slice grown by append) outside
// Linux, where emptying a reservation's pages does not promise zeros (memory_linux.go).
func withLinearMemory(ctx context.Context) context.Context { return ctx }
