package wazerohost

// The host side of the module's optional ZSTD import (wasm/ABI.md "Host imports"): the guest
// hands over a compressed page and a buffer in its memory, and klauspost's decoder runs
// natively, with its assembly, writing straight into that buffer. Inside wasm the same decoder
// runs its portable Go path; on the 4M-row events file that was about half of a full scan
// (BENCHMARKS.md "wazero"). The guest has already bounded the buffer by the page header, the
// memory cap and the input's possible expansion; here the decoder is held to the buffer's
// capacity, so a bomb costs no more than the guest allowed.

import (
	"context"
	"math"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Results of zstd_decompress besides a decoded length (internal/decode/codec/hostzstd.go).
const (
	zstdNotProvided = -1
	zstdCorrupt     = -2
	zstdTooLarge    = -3
)

// hostZstdMaxWindow bounds the history a frame may ask the host to keep beside the guest's
// buffer: that memory is the host's, outside the guest's cap. Parquet pages are single-segment
// frames (no window beyond the output); a frame that wants more than this is declined and the
// module decodes it itself, within its own memory cap (its decoder allows 2^27), so the result
// is the same either way.
const hostZstdMaxWindow = 8 << 20

// hostZstdDecoder is shared by every Host of the process: DecodeAll with concurrency > 1 is
// safe for concurrent use, one decoder per instance would hold tables per instance.
var hostZstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(math.MaxInt32),
		zstd.WithDecoderMaxWindow(hostZstdMaxWindow),
		zstd.WithDecodeAllCapLimit(true),
	)
})

// zstdInto decodes src into dst[:0:cap(dst)] without ever growing it and returns the decoded
// length or a negative code. dst is a view of guest memory: the result must be in it.
func zstdInto(dst, src []byte) int32 {
	dec, err := hostZstdDecoder()
	if err != nil {
		return zstdNotProvided
	}
	got, err := dec.DecodeAll(src, dst[:0:len(dst)]) // the capacity is the guest's bound
	switch {
	case err == zstd.ErrDecoderSizeExceeded || err == zstd.ErrFrameSizeExceeded:
		return zstdTooLarge
	case err != nil:
		return zstdCorrupt
	case len(got) > len(dst) || len(got) > math.MaxInt32:
		return zstdTooLarge
	case len(got) > 0 && unsafe.SliceData(got) != unsafe.SliceData(dst):
		return zstdTooLarge // reallocated: cannot happen with the cap limit, never trusted
	}
	return int32(len(got))
}

// instantiateHostImports adds the pqscan_host module to rt: the native decoder, or with
// Config.NoHostZstd the answer "not provided", which the module must handle (the browser's).
func (h *Host) instantiateHostImports(ctx context.Context, rt wazero.Runtime) error {
	fn := api.GoModuleFunc(func(ctx context.Context, m api.Module, stack []uint64) {
		dstPtr, dstCap := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
		srcPtr, srcLen := api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
		res := int32(zstdNotProvided)
		if !h.cfg.NoHostZstd {
			dst, ok1 := m.Memory().Read(dstPtr, dstCap)
			src, ok2 := m.Memory().Read(srcPtr, srcLen)
			res = zstdCorrupt // buffers outside memory: the guest decodes (and explains) itself
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
