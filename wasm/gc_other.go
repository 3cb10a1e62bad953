//go:build !wasm

package main

// gcAfterFirst is the wasm build's (gc_wasm.go); natively the collector is left as it is.
func gcAfterFirst() {}
