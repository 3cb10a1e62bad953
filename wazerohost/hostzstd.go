package wazerohost

// The host side of the module's ZSTD import (wasm/ABI.md "Host imports"): the guest hands over
// a compressed page and a buffer in its memory, and klauspost's decoder runs natively, with its
// assembly, writing straight into that buffer. The module links no ZSTD decoder of its own
// (internal/decode/codec/zstd.go), so this is how it reads ZSTD pages at all. The guest has
// already bounded the buffer by the page header, the memory cap and the input's possible
// expansion; here the decoder is held to the buffer's capacity, so a bomb costs no more than
// the guest allowed. The decoder's options and the classification of its errors are the native
// build's (codec.NewZstdDecoder, codec.ZstdAnswer), so a page fails here as it does natively.

import (
	"context"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/pqscan/pqscan/internal/decode/codec"
)

// hostZstdDecoder is shared by every Host of the process: DecodeAll with concurrency > 1 is
// safe for concurrent use, one decoder per instance would hold tables per instance.
var hostZstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) { return codec.NewZstdDecoder(0) })

// zstdInto decodes src into dst[:0:cap(dst)] without ever growing it and returns the decoded
// length or a negative code. dst is a view of guest memory: the result must be in it.
func zstdInto(dst, src []byte) int32 {
	dec, err := hostZstdDecoder()
	if err != nil {
		return codec.ZstdHostFailed
	}
	got, err := dec.DecodeAll(src, dst[:0:len(dst)]) // the capacity is the guest's bound
	if err == nil && len(got) > 0 && unsafe.SliceData(got) != unsafe.SliceData(dst) {
		return codec.ZstdTooLarge // reallocated: cannot happen with the cap limit, never trusted
	}
	return codec.ZstdAnswer(got, err, len(dst))
}

// instantiateHostImports adds the pqscan_host module to rt: the native decoder, or with
// Config.noHostZstd the answer "not provided", which a third-party host without a decoder
// gives and which the module must turn into a clear error.
func (h *Host) instantiateHostImports(ctx context.Context, rt wazero.Runtime) error {
	fn := api.GoModuleFunc(func(ctx context.Context, m api.Module, stack []uint64) {
		dstPtr, dstCap := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
		srcPtr, srcLen := api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
		res := int32(codec.ZstdNotProvided)
		if !h.cfg.noHostZstd {
			dst, ok1 := m.Memory().Read(dstPtr, dstCap)
			src, ok2 := m.Memory().Read(srcPtr, srcLen)
			res = codec.ZstdHostFailed // buffers outside memory: a bug, not a property of the page
			if ok1 && ok2 {
				res = zstdInto(dst, src)
			}
			h.hostZstdCalls.Add(1)
		}
		stack[0] = api.EncodeI32(res)
	})
	i32 := api.ValueTypeI32
	_, err := rt.NewHostModuleBuilder("pqscan_host").
		NewFunctionBuilder().WithGoModuleFunction(fn, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}).
		Export("zstd_decompress").
		Instantiate(ctx)
	return err
}
