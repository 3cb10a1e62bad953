package codec

// Streams whose decoded size is stored nowhere: an Avro container block (an Iceberg manifest
// or manifest list) compressed with SNAPPY or ZSTANDARD. Parquet pages always carry their
// size (Decompress); these callers have only a memory budget.

import (
	"github.com/golang/snappy"

	"github.com/pqscan/pqscan/internal/errf"
)

// DecompressSnappyBlock decodes a raw SNAPPY block (its own length preamble says the size)
// of at most max decoded bytes.
func DecompressSnappyBlock(src []byte, max int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, errf.Errorf("%w: SNAPPY length header: %w", ErrCorrupt, err)
	}
	return Decompress(nil, Snappy, src, n, max)
}

// DecompressZstdStream decodes src, ZSTD frames of an unknown decoded size (a streaming
// writer leaves the frame's content size out), into at most max bytes: the decoder gets a
// buffer, and a larger one while it answers that the output does not fit, up to max. The
// host's decoder in the wasm module, klauspost's natively, as for pages.
func DecompressZstdStream(src []byte, max int) ([]byte, error) {
	if max < 0 {
		return nil, ErrInvalidSize
	}
	if len(src) == 0 {
		return nil, nil
	}
	c := min(max, 4*len(src)+64<<10)
	for {
		out := make([]byte, c)
		got, err := zstdDecode(out, src)
		if err != nil {
			return nil, err
		}
		switch {
		case got >= 0 && int64(got) <= int64(c):
			return out[:got:got], nil
		case got == ZstdTooLarge && c < max:
			c = min(max, 2*c)
			continue
		case got == ZstdTooLarge:
			return nil, errf.Errorf("%w: ZSTD stream decodes to more than %d bytes", ErrTooLarge, max)
		case got == ZstdNotProvided:
			return nil, ErrNoHostZstd
		case got == ZstdCorrupt:
			return nil, errf.Errorf("%w: ZSTD: invalid or truncated frame", ErrCorrupt)
		}
		return nil, errf.Errorf("%w: pqscan_host.zstd_decompress answered %d (wasm/ABI.md)", ErrHostZstd, got)
	}
}
