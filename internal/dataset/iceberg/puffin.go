package iceberg

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/roaring"
)

// dvMagic starts a deletion-vector-v1 blob's bitmap (Puffin spec § deletion-vector-v1).
const dvMagic = 0x6439D3D1 // D1 D3 39 64, little-endian

// DecodeDV decodes a deletion-vector-v1 blob (its content_offset and content_size_in_bytes
// in a Puffin file): a big-endian length of the magic and the bitmap, the magic, a 64-bit
// Roaring bitmap in the portable format, and a big-endian CRC-32 of the magic and the bitmap.
// It returns the deleted positions of data (a file of rows rows) as sorted runs. A blob
// that does not read so, a checksum mismatch, a position at or past rows, or a cardinality
// other than the manifest's record_count is an error naming dv's file and data.
func DecodeDV(dv *DataFile, data *DataFile, blob []byte, maxRuns int) ([]roaring.Range, error) {
	fail := func(format string, a ...any) error {
		return errf.Errorf("%w: deletion vector %s (at %d) of %s: %s", ErrMalformed, dv.Path, dv.ContentOffset, data.Path, errf.Sprintf(format, a...))
	}
	if len(blob) < 12 || int64(len(blob)) != dv.ContentSize {
		return nil, fail("%d bytes, the manifest says %d", len(blob), dv.ContentSize)
	}
	n := binary.BigEndian.Uint32(blob)
	if uint64(n) != uint64(len(blob)-8) {
		return nil, fail("the blob says %d bytes, its size %d", n, len(blob)-8)
	}
	body := blob[4 : 4+n]
	if want, got := binary.BigEndian.Uint32(blob[4+n:]), crc32.ChecksumIEEE(body); want != got {
		return nil, fail("checksum %08x, the data's is %08x", want, got)
	}
	if m := binary.LittleEndian.Uint32(body); m != dvMagic {
		return nil, fail("magic %08x", m)
	}
	runs, card, err := roaring.Decode64(body[4:], roaring.Limits{MaxValue: uint64(max(data.Records, 0)), MaxRanges: maxRuns}, nil)
	if err != nil {
		return nil, fail("%v", err)
	}
	if card != uint64(dv.Records) {
		return nil, fail("%d rows deleted, the manifest says %d", card, dv.Records)
	}
	return runs, nil
}
