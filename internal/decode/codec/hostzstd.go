package codec

// An optional host-provided ZSTD decoder (wasm/ABI.md "Host imports").
//
// Why: inside WebAssembly klauspost's decoder runs its portable Go sequence decoder, which took
// about half of a full scan's time in wazero (BENCHMARKS.md "wazero"); natively the same
// library runs its assembly. A host that can decode natively (the wazero host) offers that
// through the import pqscan_host.zstd_decompress; a host that cannot (the browser today)
// answers "not provided" and the module's own decoder runs, as it does in native builds.
//
// The bounds are the same either way: Decompress has already checked the page's claimed size
// against the memory cap and the input's possible expansion, the host decodes into the
// module's buffer whose capacity is exactly that size (plus ZstdSlack when the caller gave
// it) and must stop rather than exceed it, and the decoded length must equal the header's.
// When the host reports any failure the module decodes the page again itself, so the error
// (and its wording) is the module's own on every host.

// Results of hostZstd besides a decoded length (the import's i32 result, wasm/ABI.md).
const (
	hostZstdNotProvided = -1 // the host has no decoder: use the module's, and stop asking
	hostZstdCorrupt     = -2 // the input is not valid ZSTD
	hostZstdTooLarge    = -3 // the output would exceed the buffer's capacity
)

// hostZstdOff is set after the host answers hostZstdNotProvided. Wasm exports run one at a
// time, and natively hostZstd never answers anything else, so no synchronization is needed
// beyond what Decompress's callers already have (the native build never writes it).
var hostZstdOff bool

// decodeZstdHost decodes src into out[:cap(out)] through the host, reporting ok=false when the
// host declined or failed (the caller then decodes with the module's decoder).
func decodeZstdHost(out, src []byte, n int) ([]byte, bool) {
	if hostZstdOff || len(src) == 0 || cap(out) == 0 {
		return nil, false
	}
	got := hostZstd(out[:cap(out)], src)
	switch {
	case got == hostZstdNotProvided:
		hostZstdOff = true
		return nil, false
	case got != int32(n): // corrupt, too large, or a length other than the header's
		return nil, false
	}
	return out[:n], true
}
