//go:build pqscan_lean

package errf

// Errorf is fmt.Errorf for the supported subset (the package comment).
func Errorf(format string, args ...any) error { return errorf(format, args...) }

// Sprintf is fmt.Sprintf for the supported subset.
func Sprintf(format string, args ...any) string { return sprintf(format, args...) }
