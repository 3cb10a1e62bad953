package encoding_test

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/decode/encoding"
)

// A v1 data page of an optional BYTE_ARRAY column: definition levels with their 4-byte length
// prefix, then the PLAIN values of the non-null rows.
func Example() {
	page := []byte{
		2, 0, 0, 0, // definition levels: 2 bytes follow
		1<<1 | 1, 0b00000101, // one bit-packed group: levels 1,0,1 (then padding)
		2, 0, 0, 0, 'h', 'i', // "hi"
		3, 0, 0, 0, 'y', 'o', 'u', // "you"
	}
	body, used, err := encoding.LengthPrefixed(page)
	if err != nil {
		panic(err)
	}
	levels, _, err := encoding.HybridLevels(nil, body, 1, 3)
	if err != nil {
		panic(err)
	}
	nonNull := 0
	for _, l := range levels {
		nonNull += int(l)
	}
	offsets, data, _, err := encoding.PlainByteArray(nil, nil, page[used:], nonNull)
	if err != nil {
		panic(err)
	}
	fmt.Println(levels, offsets, string(data))
	// Output: [1 0 1] [0 2 5] hiyou
}

func ExampleDictIndices() {
	// Bit width 2, then one bit-packed group of 8 indices: 0 1 2 3 0 0 0 0.
	idx, err := encoding.DictIndices(nil, []byte{2, 1<<1 | 1, 0b11100100, 0}, 4, 4)
	fmt.Println(idx, err)
	_, err = encoding.DictIndices(nil, []byte{2, 1<<1 | 1, 0b11100100, 0}, 4, 3)
	fmt.Println(err)
	// Output:
	// [0 1 2 3] <nil>
	// encoding: dictionary index out of range: index 3 at value 3, dictionary has 3 entries
}
