//go:build pqscan_lean || wasm

package errf

// Errorf is fmt.Errorf for the supported subset (the package comment): both wasm modules
// format with it, so neither links fmt's printer and the reflection it reaches.
func Errorf(format string, args ...any) error { return errorf(format, args...) }

// Sprintf is fmt.Sprintf for the supported subset.
func Sprintf(format string, args ...any) string { return sprintf(format, args...) }
