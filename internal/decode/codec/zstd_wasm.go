//go:build wasip1

package codec

import "unsafe"

// pqscanHostZstd is the host import (wasm/ABI.md "Host imports"): decode the ZSTD frames at
// src[:srcLen] into dst[:dstCap] and return the decoded length, or a negative Zstd* code.
//
//go:wasmimport pqscan_host zstd_decompress
func pqscanHostZstd(dst unsafe.Pointer, dstCap uint32, src unsafe.Pointer, srcLen uint32) int32

// zstdDecode hands both buffers' addresses in linear memory to the host, which writes only
// into buf. The module has no decoder of its own: a host without one answers ZstdNotProvided.
func zstdDecode(buf, src []byte) (int32, error) {
	return pqscanHostZstd(unsafe.Pointer(unsafe.SliceData(buf)), uint32(len(buf)),
		unsafe.Pointer(unsafe.SliceData(src)), uint32(len(src))), nil
}
