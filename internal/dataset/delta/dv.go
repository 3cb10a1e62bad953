package delta

// Deletion vectors (PROTOCOL.md "Deletion Vectors", "Deletion Vector Descriptor Schema",
// "Deletion Vector Format"): where a descriptor's bitmap is stored, the byte range to fetch,
// and the decode of the stored or inline bytes into the deleted row positions. The reader of
// record is delta-kernel-rs (kernel/src/actions/deletion_vector.rs).

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/roaring"
)

const (
	// dvMagic starts a RoaringBitmapArray in its portable serialization (little-endian).
	dvMagic = 1681511377
	// dvFileVersion is the first byte of a deletion vector file.
	dvFileVersion = 1
	// MaxDVBytes bounds a descriptor's sizeInBytes (as a log object is bounded): a vector that
	// large is refused before anything is fetched or allocated.
	MaxDVBytes = 256 << 20
	// maxDVRuns bounds the runs one vector decodes to (16 bytes each).
	maxDVRuns = 1 << 23
	// uuidZ85 is the length of a Z85-encoded UUID at the end of a "u" descriptor's path.
	uuidZ85 = 20
)

// Stored reports whether the vector is in a file ("u" or "p") rather than inline ("i").
func (dv *DeletionVector) Stored() bool { return dv.StorageType != "i" }

// Check validates the descriptor's fields, naming the data file in errors.
func (dv *DeletionVector) Check(file string) error {
	switch {
	case dv.StorageType != "u" && dv.StorageType != "p" && dv.StorageType != "i":
		return errf.Errorf("%w: deletion vector of %s: storage type %q", ErrUnsupportedFeature, file, dv.StorageType)
	case dv.SizeInBytes < 4 || dv.SizeInBytes > MaxDVBytes:
		return errf.Errorf("%w: deletion vector of %s: sizeInBytes %d", ErrMalformed, file, dv.SizeInBytes)
	case dv.Cardinality < 0:
		return errf.Errorf("%w: deletion vector of %s: cardinality %d", ErrMalformed, file, dv.Cardinality)
	case dv.Offset != nil && *dv.Offset < 1:
		return errf.Errorf("%w: deletion vector of %s: offset %d", ErrMalformed, file, *dv.Offset)
	}
	return nil
}

// Path is where a stored vector's file is: for "u" the path relative to the table root that
// the descriptor derives (`<prefix>/deletion_vector_<uuid>.bin`, the prefix being the
// characters before the 20-character Z85 UUID), for "p" the absolute URI as written.
func (dv *DeletionVector) Path() (string, error) {
	if dv.StorageType == "p" {
		return dv.PathOrInlineDv, nil
	}
	s := dv.PathOrInlineDv
	if len(s) < uuidZ85 {
		return "", errf.Errorf("%w: deletion vector path %q is shorter than a UUID", ErrMalformed, s)
	}
	prefix := s[:len(s)-uuidZ85]
	u, err := z85Decode(s[len(s)-uuidZ85:])
	if err != nil {
		return "", errf.Errorf("%w: deletion vector path %q: %v", ErrMalformed, s, err)
	}
	name := "deletion_vector_" + hex.EncodeToString(u[0:4]) + "-" + hex.EncodeToString(u[4:6]) + "-" +
		hex.EncodeToString(u[6:8]) + "-" + hex.EncodeToString(u[8:10]) + "-" + hex.EncodeToString(u[10:16]) + ".bin"
	if prefix == "" {
		return name, nil
	}
	// A prefix is a folder under the root: never a way out of it, nor a URI scheme (a path
	// relative to the root is told from an absolute one by its having none, IsAbsolute).
	if strings.Contains(prefix, "..") || strings.HasPrefix(prefix, "/") || strings.Contains(prefix, ":") {
		return "", errf.Errorf("%w: deletion vector prefix %q leaves the table root", ErrMalformed, prefix)
	}
	return prefix + "/" + name, nil
}

// Ranges are the byte ranges of a stored vector's file to fetch, as (offset, length): its
// version byte, and the vector framed by its size before and its checksum after. With the
// vector at offset 1 (the usual case) they are one range.
func (dv *DeletionVector) Ranges() [][2]int64 {
	off := dv.offset()
	body := [2]int64{off, 4 + int64(dv.SizeInBytes) + 4}
	if off == 1 {
		return [][2]int64{{0, 1 + body[1]}}
	}
	return [][2]int64{{0, 1}, body}
}

func (dv *DeletionVector) offset() int64 {
	if dv.Offset == nil {
		return 1 // the vector right after the version byte
	}
	return int64(*dv.Offset)
}

// Decode returns the deleted row positions as sorted, disjoint runs. For a stored vector,
// at(off, n) gives n bytes of its file at off (what Ranges asked for; nil when they did not
// all arrive: a short file). rows is the data file's row count when known (0: unknown): a
// position at or past it, a cardinality other than the descriptor's, a checksum mismatch or
// a malformed bitmap is an error naming file.
func (dv *DeletionVector) Decode(file string, at func(off, n int64) []byte, rows int64) ([]roaring.Range, error) {
	if err := dv.Check(file); err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) error {
		where := "inline"
		if dv.Stored() {
			where, _ = dv.Path()
		}
		return errf.Errorf("%w: deletion vector %s of %s: %s", ErrMalformed, where, file, errf.Sprintf(format, a...))
	}
	var data []byte // the magic and the bitmap
	if dv.Stored() {
		head, off := at(0, 1), dv.offset()
		frame := at(off, 4+int64(dv.SizeInBytes)+4)
		switch {
		case head == nil || frame == nil:
			return nil, errf.Errorf("%w: deletion vector %s of %s: the file ends before byte %d", ErrMissingFile,
				dv.PathOrInlineDv, file, off+8+int64(dv.SizeInBytes))
		case head[0] != dvFileVersion:
			return nil, fail("file format version %d", head[0])
		case binary.BigEndian.Uint32(frame) != uint32(dv.SizeInBytes):
			return nil, fail("the file says %d bytes, the log %d", binary.BigEndian.Uint32(frame), dv.SizeInBytes)
		}
		data = frame[4 : 4+dv.SizeInBytes]
		if want, got := binary.BigEndian.Uint32(frame[4+dv.SizeInBytes:]), crc32.ChecksumIEEE(data); want != got {
			return nil, fail("checksum %08x, the data's is %08x", want, got)
		}
	} else {
		b, err := z85Decode(dv.PathOrInlineDv)
		if err != nil {
			return nil, fail("%v", err)
		}
		// Writers pad the bytes to a multiple of 4 before encoding (the reference encoder's
		// rule); sizeInBytes is the length before padding.
		if len(b) < int(dv.SizeInBytes) || len(b)-int(dv.SizeInBytes) >= 4 {
			return nil, fail("%d inline bytes for sizeInBytes %d", len(b), dv.SizeInBytes)
		}
		data = b[:dv.SizeInBytes]
	}
	if m := binary.LittleEndian.Uint32(data); m != dvMagic {
		return nil, fail("magic %d", m)
	}
	lim := roaring.Limits{MaxValue: math.MaxInt64, MaxRanges: maxDVRuns}
	if rows > 0 {
		lim.MaxValue = uint64(rows)
	}
	runs, card, err := roaring.Decode64(data[4:], lim, nil)
	if err != nil {
		return nil, fail("%v", err)
	}
	if card != uint64(dv.Cardinality) {
		return nil, fail("%d rows deleted, the log says %d", card, dv.Cardinality)
	}
	return runs, nil
}

// z85Alphabet is ZeroMQ's Z85 (RFC 32/Z85), the "base85" of the Delta protocol.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

// z85Decode decodes s, whose length must be a multiple of 5, into 4 bytes per 5 characters.
func z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, errf.Errorf("Z85 length %d is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for _, c := range []byte(s[i : i+5]) {
			d := strings.IndexByte(z85Alphabet, c)
			if d < 0 {
				return nil, errors.New("Z85 character " + strconv.QuoteRune(rune(c)))
			}
			v = v*85 + uint64(d)
		}
		if v > math.MaxUint32 {
			return nil, errf.Errorf("Z85 group %q overflows", s[i:i+5])
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}
