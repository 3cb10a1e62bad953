package format

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// maxExpansion is the bound these tests hold the decoders to: decoding n input bytes allocates
// at most maxExpansion*n + expansionSlack bytes, whatever the bytes are. The worst cases are
// lists of tiny elements that become large Go structs (a 3-byte SchemaElement is ~100 bytes),
// plus append's growth. Callers size their footer cap with this factor in mind.
const (
	maxExpansion   = 48
	expansionSlack = 64 << 10
)

// allocated returns the bytes allocated while running fn.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func checkExpansion(t testing.TB, name string, in []byte, decode func([]byte)) float64 {
	t.Helper()
	got := allocated(func() { decode(in) })
	if got > uint64(maxExpansion*len(in)+expansionSlack) {
		t.Fatalf("%s: %d input bytes allocated %d bytes (%.1fx)", name, len(in), got, float64(got)/float64(len(in)))
	}
	return float64(got) / float64(len(in))
}

// repeatList builds a list field header for n elements of type elem followed by n copies of one.
func repeatList(delta, elem byte, n int, one []byte) w {
	return append(w{}.list(delta, elem, n), bytes.Repeat(one, n)...)
}

// Test_hostileLists builds inputs made of the smallest elements each list can hold and checks
// the allocation bound (the header counts are honest here; dishonest counts are rejected before
// allocating, see Test_hostileCounts).
func Test_hostileLists(t *testing.T) {
	const n = 20000
	minSchema := []byte{0x48, 0x00, 0x00} // name "" then STOP
	minSchemaLogical := []byte{0x48, 0x00, 0x6c, 0x1c, 0x00, 0x00, 0x00}
	minChunk := []byte{0x26, 0x00, 0x00} // file_offset 0
	minRowGroup := []byte{0x19, 0x0c, 0x16, 0x00, 0x16, 0x00, 0x00}
	minKV := []byte{0x18, 0x00, 0x00}
	head := w{}.i32(1, 1) // version
	tail := func(b w) w { return b }
	tests := []struct {
		name   string
		in     w
		decode func([]byte)
	}{
		{name: "schema elements", in: tail(append(head, repeatList(1, 12, n, minSchema)...).i64(1, 0).list(1, 12, 0).stop()),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "schema elements with logical types", in: append(head, repeatList(1, 12, n, minSchemaLogical)...).i64(1, 0).list(1, 12, 0).stop(),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "row groups", in: append(w{}.i32(1, 1).list(1, 12, 0).i64(1, 0), repeatList(1, 12, n, minRowGroup)...).stop(),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "column chunks", in: append(w{}.i32(1, 1).list(1, 12, 0).i64(1, 0).list(1, 12, 1), repeatList(1, 12, n, minChunk)...).i64(1, 0).i64(1, 0).stop().stop(),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "key values", in: append(w{}.i32(1, 1).list(1, 12, 0).i64(1, 0).list(1, 12, 0), repeatList(1, 12, n, minKV)...).stop(),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "column orders", in: append(w{}.i32(1, 1).list(1, 12, 0).i64(1, 0).list(1, 12, 0).list(3, 12, n), make([]byte, n)...).stop(),
			decode: func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{name: "column index empty binaries", in: append(w{}.list(1, 1, 0), repeatList(1, 8, n, []byte{0})...).list(1, 8, 0).i32(1, 0).stop(),
			decode: func(b []byte) { _, _ = DecodeColumnIndex(b) }},
		{name: "column index i64", in: append(w{}.list(1, 1, 0).list(1, 8, 0).list(1, 8, 0).i32(1, 0), repeatList(1, 6, n, []byte{0})...).stop(),
			decode: func(b []byte) { _, _ = DecodeColumnIndex(b) }},
		{name: "offset index locations", in: append(w{}, repeatList(1, 12, n, []byte{0x16, 0, 0x15, 0, 0x16, 0, 0})...).stop(),
			decode: func(b []byte) { _, _ = DecodeOffsetIndex(b) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ratio := checkExpansion(t, tc.name, tc.in, tc.decode)
			t.Logf("%.1fx", ratio)
		})
	}
}

// Test_hostileCounts gives list and binary sizes far beyond the input: each must be rejected
// before anything proportional to the claimed size is allocated.
func Test_hostileCounts(t *testing.T) {
	huge := 1 << 31
	tests := []struct {
		name   string
		in     w
		decode func([]byte) error
		err    string
	}{
		{name: "schema count", in: w{}.i32(1, 1).list(1, 12, huge),
			decode: func(b []byte) error { _, err := DecodeFileMetaData(b); return err },
			err:    "format: FileMetaData.schema: thrift: size exceeds remaining input at offset 3"},
		{name: "created_by length", in: w{}.i32(1, 1).f(5, 8).varint(uint64(huge)),
			decode: func(b []byte) error { _, err := DecodeFileMetaData(b); return err },
			err:    "format: FileMetaData.created_by: thrift: size exceeds remaining input at offset 3"},
		{name: "null pages count", in: w{}.list(1, 1, huge),
			decode: func(b []byte) error { _, err := DecodeColumnIndex(b); return err },
			err:    "format: ColumnIndex.null_pages: thrift: size exceeds remaining input"},
		{name: "page locations count", in: w{}.list(1, 12, huge),
			decode: func(b []byte) error { _, err := DecodeOffsetIndex(b); return err },
			err:    "format: OffsetIndex.page_locations: thrift: size exceeds remaining input"},
		{name: "statistics min length", in: w{}.i32(1, 0).i32(1, 1).i32(1, 1).st(2).i32(1, 1).i32(1, 0).i32(1, 0).i32(1, 0).st(1).f(2, 8).varint(uint64(huge)),
			decode: func(b []byte) error { _, _, err := DecodePageHeader(b); return err },
			err:    "format: PageHeader.data_page_header.statistics.min: thrift: size exceeds remaining input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocated(func() { err = tc.decode(tc.in) })
			require.ErrorContains(t, err, tc.err)
			require.True(t, n < 16<<10, "allocated", n)
		})
	}
}
