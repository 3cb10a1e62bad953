//go:build !pqscan_lean

package errf

import "fmt"

// Errorf is fmt.Errorf: outside the lean module fmt is linked anyway, and the printer would
// only add to the module. Call sites keep to the subset the lean module's printer supports.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Sprintf is fmt.Sprintf (Errorf).
func Sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
