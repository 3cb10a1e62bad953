//go:build !wasm && pqscan_lean

package main

// leanBuild: the tests run against the lean module, which refuses what it leaves out (options
// flatjson does not read, codecs) with ErrNeedsFullModule: a host runs the call again in the
// full module, whose answer (the rows, or the error) is the user's.
const leanBuild = true
