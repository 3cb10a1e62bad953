//go:build wasm

package main

import "os"

// The module holds its first collection back (gc.go); a GOGC in the environment (wazerohost,
// tests) is left alone.
func init() {
	if os.Getenv("GOGC") == "" {
		holdFirstGC()
	}
}
