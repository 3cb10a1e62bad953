package format

import (
	"fmt"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/thrift"
	"github.com/pqscan/pqscan/internal/require"
)

func Test_DecodeColumnIndex(t *testing.T) {
	valid := w{}.list(1, 2, 3).raw("\x01\x02\x02"). // null_pages, bools as 1/2 (elem type BOOL_FALSE)
							list(1, 8, 3).raw("\x00\x01a\x01b").list(1, 8, 3).raw("\x00\x01c\x01d").
							i32(1, int32(Ascending)).list(1, 6, 3).raw("\x04\x00\x00").
							list(3, 6, 3).raw("\x00\x02\x00").stop() // nan_counts (8)
	tests := []struct {
		name string
		in   w
		want *ColumnIndex
		err  string
	}{
		{name: "all fields", in: valid, want: &ColumnIndex{NullPages: []bool{true, false, false},
			MinValues: [][]byte{{}, []byte("a"), []byte("b")}, MaxValues: [][]byte{{}, []byte("c"), []byte("d")},
			BoundaryOrder: Ascending, NullCounts: []int64{2, 0, 0}, NanCounts: []int64{0, 1, 0}}},
		{name: "missing boundary order", in: w{}.list(1, 1, 0).list(1, 8, 0).list(1, 8, 0).stop(),
			err: "format: ColumnIndex.boundary_order: required field missing"},
		{name: "min values of wrong element type", in: w{}.list(1, 1, 0).list(1, 5, 1).raw("\x02").stop(),
			err: "format: ColumnIndex.min_values: invalid value: list of I32 where BINARY expected at offset 3"},
		{name: "truncated null pages", in: w{}.list(1, 1, 3).raw("\x01\x01"),
			err: "format: ColumnIndex.null_pages: thrift: size exceeds remaining input at offset 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeColumnIndex(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_DecodeOffsetIndex(t *testing.T) {
	loc := func(off int64, size int32, first int64) w { return w{}.i64(1, off).i32(1, size).i64(1, first).stop() }
	tests := []struct {
		name string
		in   w
		want *OffsetIndex
		err  string
	}{
		{name: "two pages and unencoded sizes",
			in:   append(append(w{}.list(1, 12, 2), loc(4, 100, 0)...), loc(104, 50, 10)...).list(1, 6, 2).i(7).i(9).stop(),
			want: &OffsetIndex{PageLocations: []PageLocation{{4, 100, 0}, {104, 50, 10}}, UnencodedByteArrayDataBytes: []int64{7, 9}}},
		{name: "page location missing first_row_index", in: w{}.list(1, 12, 1).i64(1, 4).i32(1, 100).stop().stop(),
			err: "format: OffsetIndex.page_locations.first_row_index: required field missing"},
		{name: "no page locations", in: w{}.stop(), err: "format: OffsetIndex.page_locations: required field missing"},
		{name: "empty", in: w{}, err: "format: empty input"},
		{name: "more locations than bytes allow", in: append(w{}.list(1, 12, 3), loc(4, 1, 0)...),
			err: "format: OffsetIndex.page_locations: thrift: size exceeds remaining input at offset 1: 3 elements of at least 7 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeOffsetIndex(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// ExampleDecodePageHeader decodes a dictionary page header followed by its page data.
func ExampleDecodePageHeader() {
	page := []byte{
		0x15, 0x04, // type: DICTIONARY_PAGE (2)
		0x15, 0x10, // uncompressed_page_size: 8
		0x15, 0x10, // compressed_page_size: 8
		0x4c,       // field 7 (3+4), dictionary_page_header: struct
		0x15, 0x04, //   num_values: 2
		0x15, 0x00, //   encoding: PLAIN
		0x00,                   //   STOP
		0x00,                   // STOP
		1, 0, 0, 0, 2, 0, 0, 0, // page data: two PLAIN INT32 values
	}
	h, n, err := DecodePageHeader(page)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Type, h.DictionaryPageHeader.NumValues, h.DictionaryPageHeader.Encoding)
	fmt.Println("data:", page[n:n+int(h.CompressedPageSize)])
	// Output:
	// DICTIONARY_PAGE 2 PLAIN
	// data: [1 0 0 0 2 0 0 0]
}

// Test_readPageLocationCompact checks the fast path against the table-driven reader: the same
// index, or the same error, whatever the encoding (decodeOffsetIndex with either reader).
func Test_readPageLocationCompact(t *testing.T) {
	loc := func(off int64, size int32, first int64) w { return w{}.i64(1, off).i32(1, size).i64(1, first).stop() }
	list := func(locs ...w) w {
		b := w{}.list(1, 12, len(locs))
		for _, l := range locs {
			b = append(b, l...)
		}
		return b.stop()
	}
	tests := []struct {
		name string
		in   w
		fast bool // every location takes the fast path
	}{
		{name: "usual encoding", in: list(loc(4, 100, 0), loc(104, 50, 10), loc(1<<40, 1<<30, 1<<33)), fast: true},
		{name: "negative values", in: list(loc(-1, -5, -7)), fast: true},
		{name: "fields out of order", in: list(w{}.i64(3, 9).f(0xe, 6).i(-2).raw("\x01").i64(0, 4).stop())},
		{name: "long-form header", in: list(w{}.raw("\x06\x02").i(4).i32(1, 100).i64(1, 0).stop())},
		{name: "unknown field", in: list(w{}.i64(1, 4).i32(1, 100).i64(1, 0).bin(1, "x").stop())},
		{name: "stop with a nonzero high nibble", in: list(w{}.i64(1, 4).i32(1, 100).i64(1, 0).raw("\x10"))},
		{name: "size beyond int32", in: list(w{}.i64(1, 4).i64(1, 1<<40).i64(1, 0).stop())},
		{name: "missing first_row_index", in: list(w{}.i64(1, 4).i32(1, 100).stop())},
		{name: "truncated", in: w{}.list(1, 12, 1).i64(1, 4).i32(1, 100).f(1, 6)},
		{name: "mixed", in: list(loc(4, 100, 0), w{}.i32(2, 50).i64(1, 10).i64(0xe, 104).stop(), loc(200, 5, 20))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeOffsetIndex(tc.in, readPageLocation)
			want, werr := decodeOffsetIndex(tc.in, readPageLocationTable)
			require.Equal(t, fmt.Sprint(werr), fmt.Sprint(err))
			require.Equal(t, want, got)
			fast := 0
			onlyFast := func(r *thrift.Reader) (PageLocation, error) {
				p, ok := readPageLocationCompact(r)
				if ok {
					fast++
					return p, nil
				}
				return readPageLocationTable(r)
			}
			_, _ = decodeOffsetIndex(tc.in, onlyFast)
			if tc.fast {
				require.Equal(t, len(want.PageLocations), fast)
			}
		})
	}
}

// FuzzOffsetIndexCompact: the fast page location path decodes every input as the
// table-driven reader does (same index, or the same error).
func FuzzOffsetIndexCompact(f *testing.F) {
	for _, b := range pageIndexSeeds(f, false) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := decodeOffsetIndex(in, readPageLocation)
		want, werr := decodeOffsetIndex(in, readPageLocationTable)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("error %v, table-driven %v", err, werr)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("decoded %v, table-driven %v", got, want)
		}
	})
}

// BenchmarkDecodeOffsetIndex: an index of 2,000 pages, with the fast page location path and
// with the table-driven reader alone (GOOS=wasip1 numbers: see BENCHMARKS.md).
func BenchmarkDecodeOffsetIndex(b *testing.B) {
	in := w{}.list(1, 12, 2000)
	for i := range 2000 {
		in = append(in, w{}.i64(1, 4+int64(i)*65536).i32(1, 65536).i64(1, int64(i)*1000).stop()...)
	}
	in = in.stop()
	for _, c := range []struct {
		name string
		read func(*thrift.Reader) (PageLocation, error)
	}{{"compact", readPageLocation}, {"table", readPageLocationTable}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := decodeOffsetIndex(in, c.read); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
