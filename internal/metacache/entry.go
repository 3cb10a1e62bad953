// Package metacache keeps a file's metadata (the bytes of its tail: footer and page indexes as
// fetched) across processes, so that a returning reader plans its scan without a request.
//
// A Store holds opaque values by key (Dir: a folder, bounded in bytes, least recently used
// first out; hosts may bring their own). Every value is an entry (Encode): a format version,
// the key it was stored under and a checksum, so that a corrupt, truncated, foreign or
// other-version value reads as a miss (Decode) instead of wrong metadata. The entry's payload
// for a file is a Tail: its size, its validators (ETag, Last-Modified) and the byte pieces.
// Nothing here trusts a cached value blindly: the host sends the validators with every
// request, and a mismatch drops the entry and reads the file again.
package metacache

import (
	"encoding/binary"
	"hash/crc32"
)

// Version is the entry format version; entries of another version read as misses.
const Version = 1

var magic = [4]byte{'P', 'Q', 'M', 'C'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode wraps payload in an entry for key: magic, version, key, payload, CRC-32C of all of it.
func Encode(key string, payload []byte) []byte {
	b := make([]byte, 0, 4+2+4+len(key)+4+len(payload)+4)
	b = append(b, magic[:]...)
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Decode returns the payload of an entry stored under key; ok is false when b is not a whole,
// intact entry of this version for this key. The payload aliases b.
func Decode(key string, b []byte) (payload []byte, ok bool) {
	const head = 4 + 2 + 4
	if len(b) < head+4+4 || [4]byte(b[:4]) != magic || binary.LittleEndian.Uint16(b[4:]) != Version {
		return nil, false
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, false
	}
	rest := body[head:]
	kl := uint64(binary.LittleEndian.Uint32(b[6:]))
	if kl > uint64(len(rest)) || string(rest[:kl]) != key {
		return nil, false
	}
	rest = rest[kl:]
	if len(rest) < 4 {
		return nil, false
	}
	pl := uint64(binary.LittleEndian.Uint32(rest))
	if pl != uint64(len(rest)-4) {
		return nil, false
	}
	return rest[4:], true
}
