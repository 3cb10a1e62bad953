package prune

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Bloom filters (parquet-format BloomFilter.md): a Split Block Bloom Filter over the XXH64
// (seed 0) hash of each value's PLAIN encoding. A filter only proves absence.

const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
)

// XXH64 returns the 64-bit xxHash of b with seed 0, the hash Parquet Bloom filters use.
func XXH64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		p1 := xxPrime1 // a variable: the seeds wrap around, which constants may not
		v1 := p1 + xxPrime2
		v2 := xxPrime2
		v3 := uint64(0)
		v4 := -p1
		for len(b) >= 32 {
			v1 = xxRound(v1, binary.LittleEndian.Uint64(b[0:]))
			v2 = xxRound(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint64(b[24:]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMerge(h, v1)
		h = xxMerge(h, v2)
		h = xxMerge(h, v3)
		h = xxMerge(h, v4)
	} else {
		h = xxPrime5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * xxPrime1
		h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * xxPrime5
		h = bits.RotateLeft64(h, 11) * xxPrime1
	}
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

func xxRound(acc, in uint64) uint64 {
	acc += in * xxPrime2
	return bits.RotateLeft64(acc, 31) * xxPrime1
}

func xxMerge(h, v uint64) uint64 {
	h ^= xxRound(0, v)
	return h*xxPrime1 + xxPrime4
}

// sbbfSalt are the eight odd constants of the Split Block Bloom Filter.
var sbbfSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// SBBFContains reports whether the Split Block Bloom Filter bitset (32-byte blocks of eight
// little-endian uint32 words) may contain hash. False proves absence. A bitset shorter than
// one block cannot prove anything and answers true; trailing bytes beyond whole blocks are
// ignored.
func SBBFContains(bitset []byte, hash uint64) bool {
	nb := uint64(len(bitset) / 32)
	if nb == 0 {
		return true
	}
	blk := bitset[((hash>>32)*nb>>32)*32:]
	key := uint32(hash)
	for i, s := range sbbfSalt {
		mask := uint32(1) << ((key * s) >> 27)
		if binary.LittleEndian.Uint32(blk[4*i:])&mask == 0 {
			return false
		}
	}
	return true
}

// MayMatchBloom reports whether the column chunk whose Bloom filter answers contains may
// hold a row satisfying the predicate; false proves that none does. contains(h) must return
// false only when the filter proves hash h absent (e.g. SBBFContains over the bitset).
//
// Only = and IN on column path (and LIKE without wildcards) consult the filter; the literal is
// hashed in the column's PLAIN encoding: INT32 4 bytes and INT64 8 bytes little-endian,
// FLOAT/DOUBLE IEEE bits little-endian (both +0 and -0 are probed for zero), BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY the raw bytes (a FIXED_LEN_BYTE_ARRAY decimal sign-extended to the
// type length). BOOLEAN, INT96, BYTE_ARRAY decimals and NaN literals are never pruned.
func (b *Bound) MayMatchBloom(path string, contains func(hash uint64) bool) bool {
	ci := b.colIndex(path)
	if ci < 0 {
		return true
	}
	t := b.cols[ci].typ
	return b.MayMatchValues(path, func(v Value) bool {
		hs, ok := plainHashes(t, v)
		if !ok {
			return false
		}
		for _, h := range hs {
			if contains(h) {
				return false
			}
		}
		return true
	})
}

// MayMatchValues reports whether rows whose column path holds no value absent(v) proves
// missing may satisfy the predicate: = and IN on path (and LIKE without wildcards) are false
// for literals absent says are not there. A Bloom filter, or a partition's hash bucket,
// answers absent; false from absent means unknown.
func (b *Bound) MayMatchValues(path string, absent func(v Value) bool) bool {
	ci := b.colIndex(path)
	if ci < 0 {
		return true
	}
	leaf := func(nd *bnode) uint8 {
		if nd.col != ci || nd.nanLit {
			return sAll
		}
		switch {
		case nd.op == bCmp && nd.cmp == OpEq && absent(nd.val):
			return sFalse | sNull
		case nd.op == bIn:
			for _, v := range nd.vals {
				if !absent(v) {
					return sAll
				}
			}
			return sFalse | sNull
		case nd.op == bLike && nd.exact && absent(BytesValue(nd.pat)):
			return sFalse | sNull
		}
		return sAll
	}
	return evalSets(b.root, leaf, nil)&sTrue != 0
}

// plainHashes returns the XXH64 hashes of v's PLAIN encoding for column type t (two for a
// floating zero), or false when the column is not Bloom-filterable.
func plainHashes(t ColumnType, v Value) ([]uint64, bool) {
	var buf [8]byte
	switch t.Physical {
	case Int32:
		var x uint32
		switch t.Kind {
		case Int, Date, Time, Decimal:
			if v.B != nil || v.I < math.MinInt32 || v.I > math.MaxInt32 {
				return nil, false
			}
			x = uint32(int32(v.I))
		case Uint:
			if v.U > math.MaxUint32 {
				return nil, false
			}
			x = uint32(v.U)
		default:
			return nil, false
		}
		binary.LittleEndian.PutUint32(buf[:], x)
		return []uint64{XXH64(buf[:4])}, true
	case Int64:
		var x uint64
		switch t.Kind {
		case Int, Date, Time, Timestamp, Decimal:
			if v.B != nil {
				return nil, false
			}
			x = uint64(v.I)
		case Uint:
			x = v.U
		default:
			return nil, false
		}
		binary.LittleEndian.PutUint64(buf[:], x)
		return []uint64{XXH64(buf[:])}, true
	case PhysFloat, Double:
		if t.Kind != Float || math.IsNaN(v.F) {
			return nil, false
		}
		h := func(f float64) uint64 {
			if t.Physical == PhysFloat {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(float32(f)))
				return XXH64(buf[:4])
			}
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(f))
			return XXH64(buf[:])
		}
		if v.F == 0 {
			return []uint64{h(0), h(math.Copysign(0, -1))}, true
		}
		return []uint64{h(v.F)}, true
	case ByteArray:
		if t.Kind != Bytes {
			return nil, false
		}
		return []uint64{XXH64(v.B)}, true
	case FixedLenByteArray:
		switch t.Kind {
		case Bytes:
			return []uint64{XXH64(v.B)}, true
		case Decimal:
			b, ok := signExtend(decTwos(v), int(t.TypeLength))
			if !ok {
				return nil, false
			}
			return []uint64{XXH64(b)}, true
		}
	}
	return nil, false
}
