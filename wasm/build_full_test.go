//go:build !wasm && !pqscan_lean

package main

// leanBuild: the tests run against the full module (build_lean_test.go).
const leanBuild = false
