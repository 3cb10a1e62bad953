//go:build !pqscan_lean && !wasm

package errf

import "fmt"

// Errorf is fmt.Errorf: native builds link fmt anyway, and its printer covers whatever a
// native-only caller passes. Call sites in the wasm modules' packages keep to the subset the
// modules' printer supports (check_test.go).
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Sprintf is fmt.Sprintf (Errorf).
func Sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
