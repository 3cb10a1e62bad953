//go:build wasm

package main

import "os"

// The module keeps its collector's goal at a floor (gc.go); a GOGC in the environment
// (wazerohost, tests) is left alone.
func init() {
	if os.Getenv("GOGC") == "" {
		startGCFloor()
	}
}
