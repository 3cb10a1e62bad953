//go:build wasip1

package codec

import "unsafe"

// pqscanHostZstd is the host import (wasm/ABI.md "Host imports"): decode the ZSTD frames at
// src[:srcLen] into dst[:dstCap] and return the decoded length, or a negative hostZstd* code.
//
//go:wasmimport pqscan_host zstd_decompress
func pqscanHostZstd(dst unsafe.Pointer, dstCap uint32, src unsafe.Pointer, srcLen uint32) int32

// hostZstd passes both buffers' addresses in linear memory; the host writes only into dst.
func hostZstd(dst, src []byte) int32 {
	return pqscanHostZstd(unsafe.Pointer(unsafe.SliceData(dst)), uint32(len(dst)),
		unsafe.Pointer(unsafe.SliceData(src)), uint32(len(src)))
}
