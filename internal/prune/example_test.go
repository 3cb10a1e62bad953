package prune_test

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/prune"
)

func Example() {
	e, err := prune.Parse("price > 2.5 AND NOT (city IN ('Oslo', 'Bergen'))")
	if err != nil {
		panic(err)
	}
	schema := map[string]prune.ColumnType{
		"price": {Kind: prune.Int, Physical: prune.Int32},
		"city":  {Kind: prune.Bytes, Physical: prune.ByteArray},
	}
	b, err := prune.Bind(e, func(p string) (prune.ColumnType, bool) { t, ok := schema[p]; return t, ok })
	if err != nil {
		panic(err)
	}
	fmt.Println(b)

	// A row group whose prices are all within [0, 2] cannot match.
	fmt.Println(b.MayMatch(func(p string) (prune.ColStats, bool) {
		if p != "price" {
			return prune.ColStats{}, false
		}
		return prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(0), Max: prune.IntValue(2),
			MinExact: true, MaxExact: true, NullCount: 0, NumValues: 100, NaNCount: -1}, true
	}))

	// Rows.
	cols := map[string]*prune.Vector{
		"price": {Kind: prune.Int, Len: 3, I32: []int32{3, 9, 1}},
		"city":  {Kind: prune.Bytes, Len: 3, Offsets: []int32{0, 4, 11, 14}, Data: []byte("OsloTromsøRom")},
	}
	sel := make([]bool, 3)
	if err := b.Filter(func(p string) *prune.Vector { return cols[p] }, 3, sel); err != nil {
		panic(err)
	}
	fmt.Println(sel)
	// Output:
	// price >= 3 AND NOT (city IN ('Bergen', 'Oslo'))
	// false
	// [false true false]
}
