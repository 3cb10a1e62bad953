package httprange_test

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/httprange"
)

func ExampleCoalesce() {
	needed := []httprange.Range{
		{Off: 4, Len: 100},             // column chunk A
		{Off: 104, Len: 50},            // B, adjacent: merged
		{Off: 154 + 60000, Len: 10},    // C, 60000-byte gap ≤ 64 KiB: read through
		{Off: 10 << 20, Len: 20 << 20}, // D, 20 MiB: split 8 + 8 + 4 MiB
	}
	for _, r := range httprange.Coalesce(needed, httprange.CoalesceOptions{}) {
		fmt.Println(r.Off, r.Len)
	}
	fmt.Println(httprange.Total(needed))
	// Output:
	// 4 60160
	// 10485760 8388608
	// 18874368 8388608
	// 27262976 4194304
	// 20971680
}

func ExampleCache() {
	var c httprange.Cache
	buf := []byte("0123456789")
	c.Push(100, buf) // copied: the host may reuse buf
	c.Push(120, []byte("abcde"))
	fmt.Println(c.Has(httprange.Range{Off: 102, Len: 5}), c.Missing(httprange.Range{Off: 105, Len: 20}))
	b, _ := c.Get(httprange.Range{Off: 102, Len: 5})
	fmt.Printf("%s %d\n", b, c.Bytes())
	c.ReleaseBefore(120)
	fmt.Println(c.Bytes())
	// Output:
	// true [{110 10}]
	// 23456 15
	// 5
}
