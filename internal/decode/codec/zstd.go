package codec

// ZSTD pages (RFC 8878, any number of frames).
//
// Natively the page is decoded by klauspost's decoder (zstd_native.go). In the wasm module the
// host decodes it, through the import pqscan_host.zstd_decompress (zstd_wasm.go, wasm/ABI.md
// "Host imports"): the module links no ZSTD decoder of its own, which keeps ~139 KB brotli out
// of it (SIZE.md), and every host already has a faster one (klauspost with its assembly in
// wazero, zstd's C decoder in the JS hosts).
//
// Both report the import's i32 answer (a decoded length or a Zstd* code), and zstdOutcome
// alone turns it into the result or the error, so a page reads the same, and fails with the
// same words, natively, in wazero and in the JS hosts. The bounds are checked here, before any
// decoder runs: Decompress has checked the page's claimed size against the memory cap and the
// input's possible expansion, the decoder gets a buffer whose capacity is exactly that size
// (plus ZstdSlack when the caller gave it) and must stop rather than exceed it, and the
// decoded length must equal the header's.

import "github.com/pqscan/pqscan/internal/errf"

// ZstdSlack is the spare output capacity that lets the ZSTD decoder use its wide copies;
// callers that reuse a scratch buffer should give it this much room beyond the page size.
const ZstdSlack = 64

// ZstdMaxWindow is the largest window a frame may declare: what zstd's reference decoder
// accepts in a 32-bit build (window log 30 with the largest mantissa, RFC 8878 3.1.1.1.2),
// which is how the JS hosts run it, so every host and the native build reject the same frames.
// A window costs no memory here: the decoders keep the history in the output buffer, which
// the memory cap bounds.
const ZstdMaxWindow = 1<<30 + 7<<27

// The import's answers besides a decoded length (wasm/ABI.md "Host imports"); the wazero host
// answers with these constants.
const (
	ZstdNotProvided = -1 // the host has no ZSTD decoder
	ZstdCorrupt     = -2 // the input is not valid ZSTD
	ZstdTooLarge    = -3 // the output would exceed the buffer's capacity
	ZstdHostFailed  = -4 // the host's decoder failed for a reason of its own (its memory)
)

func decodeZstd(dst, src []byte, n int) ([]byte, error) {
	// The buffer's capacity bounds the decoder: a frame that declares, or decodes to, more
	// fails instead of growing it, and zstdOutcome rejects anything but n. When dst has
	// ZstdSlack spare bytes the decoder may use its fast copy routines, which write past the
	// last byte: with capacity exactly n every block took klauspost's slow bounds-exact path
	// (profiled: 2–3× slower).
	c := n
	if cap(dst) >= n+ZstdSlack {
		c = n + ZstdSlack // the caller provided the slack (decode keeps such a scratch buffer)
	}
	out := outBuf(dst, n)[:c:c]
	if len(src) == 0 {
		return zstdOutcome(out, 0, n) // no frames: nothing to ask a decoder
	}
	got, err := zstdDecode(out, src)
	if err != nil {
		return nil, err
	}
	return zstdOutcome(out, got, n)
}

// zstdOutcome turns a decoder's answer for a page of n bytes, decoded into out, into the page
// or its error. The wording is fixed, not the decoder's own, so that all engines agree.
func zstdOutcome(out []byte, got int32, n int) ([]byte, error) {
	switch {
	case got >= 0 && int64(got) == int64(n):
		return out[:n], nil
	case got == ZstdNotProvided:
		return nil, ErrNoHostZstd
	case got == ZstdCorrupt:
		return nil, errf.Errorf("%w: ZSTD: invalid or truncated frame", ErrCorrupt)
	case got == ZstdTooLarge || int64(got) > int64(n): // a length past the buffer is never trusted
		return nil, errf.Errorf("%w: ZSTD page decompresses to more than the %d bytes the header says", ErrSizeMismatch, n)
	case got >= 0:
		return nil, errf.Errorf("%w: ZSTD page decompressed to %d bytes, header says %d", ErrSizeMismatch, got, n)
	}
	return nil, errf.Errorf("%w: pqscan_host.zstd_decompress answered %d (wasm/ABI.md)", ErrHostZstd, got)
}
