//go:build !pqscan_lean

package variant

// Supported is true: this build decodes variants (lean.go says what the lean module does).
const Supported = true
