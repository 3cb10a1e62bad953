package format

import (
	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Bloom filter header: parquet.thrift "BloomFilterHeader" and its three unions
// (see parquet-format BloomFilter.md). The header is followed by NumBytes of bitset.

// BloomFilterAlgorithm is the member set in union BloomFilterAlgorithm (values = field ids).
type BloomFilterAlgorithm int32

// BloomFilterHash is the member set in union BloomFilterHash.
type BloomFilterHash int32

// BloomFilterCompression is the member set in union BloomFilterCompression.
type BloomFilterCompression int32

// Bloom filter union members. The zero value of each type means the union held a member this
// package does not know, and a reader must not use the filter.
const (
	BloomAlgorithmUnrecognized BloomFilterAlgorithm = 0
	BloomBlock                 BloomFilterAlgorithm = 1

	BloomHashUnrecognized BloomFilterHash = 0
	BloomXXHash           BloomFilterHash = 1

	BloomCompressionUnrecognized BloomFilterCompression = 0
	BloomUncompressed            BloomFilterCompression = 1
)

func (a BloomFilterAlgorithm) String() string {
	return enumName("BloomFilterAlgorithm", int32(a), "UNRECOGNIZED", "BLOCK")
}

func (h BloomFilterHash) String() string {
	return enumName("BloomFilterHash", int32(h), "UNRECOGNIZED", "XXHASH")
}

func (c BloomFilterCompression) String() string {
	return enumName("BloomFilterCompression", int32(c), "UNRECOGNIZED", "UNCOMPRESSED")
}

// BloomFilterHeader precedes a split-block Bloom filter's bitset.
type BloomFilterHeader struct {
	NumBytes    int32
	Algorithm   BloomFilterAlgorithm
	Hash        BloomFilterHash
	Compression BloomFilterCompression
}

// Usable reports whether the filter uses the only algorithm, hash and compression the spec
// defines; a filter that does not must be ignored (treated as "may contain").
func (h *BloomFilterHeader) Usable() bool {
	return h.Algorithm == BloomBlock && h.Hash == BloomXXHash && h.Compression == BloomUncompressed
}

// DecodeBloomFilterHeader decodes the header at the start of b (which may hold the bitset too,
// or only a prefix of it) and returns it with the number of header bytes; the bitset is
// b[n:n+NumBytes] when b is long enough. NumBytes is checked to be non-negative only.
func DecodeBloomFilterHeader(b []byte) (*BloomFilterHeader, int, error) {
	if len(b) == 0 {
		return nil, 0, ErrEmpty
	}
	r := thrift.NewReader(b)
	h := &BloomFilterHeader{}
	union := func(dst *int32) error {
		return r.ReadStruct(func(id int16, t thrift.Type) error {
			if id == 1 && t == thrift.Struct {
				*dst = 1
			}
			return r.Skip(t)
		})
	}
	err := readStruct(r, &bloomFilterHeaderSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			if h.NumBytes, err = r.I32(); err == nil {
				err = checkNonNegative("numBytes", h.NumBytes)
			}
		case 2:
			err = union((*int32)(&h.Algorithm))
		case 3:
			err = union((*int32)(&h.Hash))
		case 4:
			err = union((*int32)(&h.Compression))
		}
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return h, r.Offset(), nil
}

var bloomFilterHeaderSpec = structSpec{name: "BloomFilterHeader", fields: []field{
	{1, thrift.I32, true, "numBytes"},
	{2, thrift.Struct, true, "algorithm"},
	{3, thrift.Struct, true, "hash"},
	{4, thrift.Struct, true, "compression"},
}}
