package scan

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// quirkFiles are the hand-built files of testdata/quirks (README.md there says which writer
// produced each shape). quirks_test.go reads them from testdata; Test_quirkFilesUpToDate checks
// that the committed bytes are what these builders produce (go test -run Test_quirkFilesUpToDate
// -update rewrites them).
var quirkFiles = []struct {
	name  string
	build func() qFile
}{
	{"interval_unknown_logical", intervalUnknownLogical},
	{"parquet816_short_chunk", parquet816ShortChunk},
	{"lying_offset_index", lyingOffsetIndex},
	{"list_of_maps_two_level", listOfMapsTwoLevel},
	{"empty_group", emptyGroup},
	{"deep_nesting_100", deepNesting100},
	{"bit_packed_levels", bitPackedLevels},
	{"negative_time", negativeTime},
	{"parquet251_binary_stats", parquet251BinaryStats},
	{"crc_zero_parquetjl", crcZeroParquetJL},
	{"alp_columns", alpColumns},
}

var (
	tInt32 = typePtr(format.Int32)
	tBytes = typePtr(format.ByteArray)
	tFLBA  = typePtr(format.FixedLenByteArray)
)

func root(n int32) qEl { return qEl{name: "schema", children: n} }

// Case 1: parquet-mr 1.11-1.12 wrote LogicalType UNKNOWN next to ConvertedType INTERVAL.
func intervalUnknownLogical() qFile {
	lv := rleLevels(rleRun(1, 1, 1), rleRun(1, 0, 1))
	return qFile{
		createdBy: "parquet-mr version 1.12.3 (build f8dced182c4c1fbdec6ccb3185537b5a01e6ed6b)",
		elems: []qEl{root(1), {name: "i", typ: tFLBA, typeLen: 12, rep: format.Optional,
			conv: convPtr(format.ConvertedInterval), logical: logicalUnknown()}},
		numRows: 2,
		cols: []qCol{{typ: format.FixedLenByteArray, path: []string{"i"}, numValues: 2,
			pages: []qPage{v1Page(2, format.Plain, format.RLE, format.RLE, lv, le32s(1, 2, 3))}}},
	}
}

// Case 2 (PARQUET-816): parquet-mr before 1.2.9 left the dictionary page header out of
// total_compressed_size; a second column follows, so the short chunk is not at the footer.
func parquet816ShortChunk() qFile {
	dict := plainDictPage(2, le32s(10, 20))
	// Indices 0, 1, 0: bit width 1, one bit-packed group of 8.
	data := v1Page(3, format.PlainDictionary, format.RLE, format.RLE, nil, []byte{1, 1<<1 | 1, 0b010})
	return qFile{
		createdBy: "parquet-mr version 1.2.8 (build 1234567)",
		elems:     []qEl{root(2), {name: "a", typ: tInt32, rep: format.Required}, {name: "b", typ: tInt32, rep: format.Required}},
		numRows:   3,
		cols: []qCol{
			{typ: format.Int32, path: []string{"a"}, numValues: 3, dict: &dict, pages: []qPage{data},
				sizeDelta: -int64(len(dict.header))},
			{typ: format.Int32, path: []string{"b"}, numValues: 3,
				pages: []qPage{v1Page(3, format.Plain, format.RLE, format.RLE, nil, le32s(1, 2, 3))}},
		},
	}
}

// Case 3: an offset index whose compressed_page_size leaves out the page header (old segmentio
// parquet-go, "parquet-go version latest", and Parquet.Net), with an honest column index.
func lyingOffsetIndex() qFile {
	ci := (&tstruct{}).field(1, ctList)
	ci.b = append(listHeader(ci.b, 2, ctTrue), ctFalse, ctFalse)
	ci.field(2, ctList)
	ci.b = append(listHeader(ci.b, 2, ctBinary), 4, 0, 0, 0, 0, 4, 3, 0, 0, 0)
	ci.field(3, ctList)
	ci.b = append(listHeader(ci.b, 2, ctBinary), 4, 2, 0, 0, 0, 4, 5, 0, 0, 0)
	ci.i32(4, 1) // ASCENDING
	return qFile{
		createdBy: "parquet-go version latest",
		elems:     []qEl{root(1), {name: "a", typ: tInt32, rep: format.Required}},
		numRows:   6,
		cols: []qCol{{typ: format.Int32, path: []string{"a"}, numValues: 6, firstRows: []int64{0, 3}, lie: true, colIndex: ci.end(),
			pages: []qPage{
				v1Page(3, format.Plain, format.RLE, format.RLE, nil, le32s(0, 1, 2)),
				v1Page(3, format.Plain, format.RLE, format.RLE, nil, le32s(3, 4, 5)),
			}}},
	}
}

// Case 4: a legacy two-level list whose repeated element is a MAP-annotated group. Rows:
// [{a:1, b:2}, {c:null}], null, [], [{}].
func listOfMapsTwoLevel() qFile {
	levels := func(bwRep, bwDef int, rep, def []int) []byte {
		var r, d [][]byte
		for i := range rep {
			r = append(r, rleRun(1, rep[i], bwRep))
			d = append(d, rleRun(1, def[i], bwDef))
		}
		return append(rleLevels(r...), rleLevels(d...)...)
	}
	rep := []int{0, 2, 1, 0, 0, 0}
	return qFile{
		createdBy: "parquet-mr version 1.6.0",
		elems: []qEl{root(1),
			{name: "l", rep: format.Optional, children: 1, conv: convPtr(format.ConvertedList)},
			{name: "m", rep: format.Repeated, children: 1, conv: convPtr(format.ConvertedMap)},
			{name: "key_value", rep: format.Repeated, children: 2},
			{name: "key", typ: tBytes, rep: format.Required, conv: convPtr(format.ConvertedUTF8)},
			{name: "value", typ: tInt32, rep: format.Optional}},
		numRows: 4,
		cols: []qCol{
			{typ: format.ByteArray, path: []string{"l", "m", "key_value", "key"}, numValues: 6,
				pages: []qPage{v1Page(6, format.Plain, format.RLE, format.RLE, levels(2, 2, rep, []int{3, 3, 3, 0, 1, 2}), byteArrays("a", "b", "c"))}},
			{typ: format.Int32, path: []string{"l", "m", "key_value", "value"}, numValues: 6,
				pages: []qPage{v1Page(6, format.Plain, format.RLE, format.RLE, levels(2, 3, rep, []int{4, 4, 3, 0, 1, 2}), le32s(1, 2))}},
		},
	}
}

// Case 5: groups without children (parquet-go writes them), one nested in a struct.
func emptyGroup() qFile {
	return qFile{
		createdBy: "parquet-go version 0.0.0 (shape of issue #15, case 5)",
		elems: []qEl{root(3), {name: "e", rep: format.Optional},
			{name: "s", rep: format.Optional, children: 2}, {name: "z", rep: format.Optional}, {name: "x", typ: tInt32, rep: format.Optional},
			{name: "a", typ: tInt32, rep: format.Required}},
		numRows: 2,
		cols: []qCol{
			{typ: format.Int32, path: []string{"s", "x"}, numValues: 2,
				pages: []qPage{v1Page(2, format.Plain, format.RLE, format.RLE, rleLevels(rleRun(1, 2, 2), rleRun(1, 0, 2)), le32s(5))}},
			{typ: format.Int32, path: []string{"a"}, numValues: 2,
				pages: []qPage{v1Page(2, format.Plain, format.RLE, format.RLE, nil, le32s(1, 2))}},
		},
	}
}

// Case 6: 100 levels of optional structs (Impala and Hive allow 100). Rows: x = 7; null at
// level 50; null at the top.
func deepNesting100() qFile {
	elems := []qEl{root(1)}
	path := []string{}
	for i := 0; i < 100; i++ {
		name := "g" + string(rune('0'+i/10)) + string(rune('0'+i%10))
		elems = append(elems, qEl{name: name, rep: format.Optional, children: 1})
		path = append(path, name)
	}
	elems = append(elems, qEl{name: "x", typ: tInt32, rep: format.Optional})
	path = append(path, "x")
	lv := rleLevels(rleRun(1, 101, 7), rleRun(1, 50, 7), rleRun(1, 0, 7))
	return qFile{
		createdBy: "impala version 4.1.0-RELEASE (build 1234567)",
		elems:     elems,
		numRows:   3,
		cols: []qCol{{typ: format.Int32, path: path, numValues: 3,
			pages: []qPage{v1Page(3, format.Plain, format.RLE, format.RLE, lv, le32s(7))}}},
	}
}

// Case 7: deprecated BIT_PACKED levels, MSB first, without a length prefix. o: 1, null, 3,
// null, 5. r (a legacy repeated column): [1, 2], [], [3], [4], [].
func bitPackedLevels() qFile {
	return qFile{
		createdBy: "parquet-mr version 1.2.9 (shape: BIT_PACKED levels, issue #15 case 7)",
		elems:     []qEl{root(2), {name: "o", typ: tInt32, rep: format.Optional}, {name: "r", typ: tInt32, rep: format.Repeated}},
		numRows:   5,
		cols: []qCol{
			{typ: format.Int32, path: []string{"o"}, numValues: 5,
				pages: []qPage{v1Page(5, format.Plain, format.BitPacked, format.BitPacked, []byte{0b10101000}, le32s(1, 3, 5))}},
			{typ: format.Int32, path: []string{"r"}, numValues: 6,
				pages: []qPage{v1Page(6, format.Plain, format.BitPacked, format.BitPacked, []byte{0b01000000, 0b11011000}, le32s(1, 2, 3, 4))}},
		},
	}
}

// Case 8: negative TIME_MILLIS values (out of spec; Drill and DuckDB write them).
func negativeTime() qFile {
	return qFile{
		createdBy: "parquet-mr version 1.10.0 (shape: Drill negative TIME, issue #15 case 8)",
		elems:     []qEl{root(1), {name: "t", typ: tInt32, rep: format.Required, conv: convPtr(format.ConvertedTimeMillis)}},
		numRows:   3,
		cols: []qCol{{typ: format.Int32, path: []string{"t"}, numValues: 3,
			pages: []qPage{v1Page(3, format.Plain, format.RLE, format.RLE, nil, le32s(-1999, 3723004, -1))}}},
	}
}

// Writer table (PARQUET-251): parquet-java ignores the statistics of binary columns written by
// parquet-mr before 1.8.0 whole (CorruptStatistics.shouldIgnoreStatistics). Here they are made
// wrong on purpose (null_count 0, yet row 2 is null) so the test sees whether they are used.
func parquet251BinaryStats() qFile {
	st := (&tstruct{}).bin(1, "x").bin(2, "x").i64(3, 0).end()
	return qFile{
		createdBy: "parquet-mr version 1.7.0 (build 1234567)",
		elems:     []qEl{root(1), {name: "s", typ: tBytes, rep: format.Optional, conv: convPtr(format.ConvertedUTF8)}},
		numRows:   2,
		cols: []qCol{{typ: format.ByteArray, path: []string{"s"}, numValues: 2, stats: st,
			pages: []qPage{v1Page(2, format.Plain, format.RLE, format.RLE, rleLevels(rleRun(1, 1, 1), rleRun(1, 0, 1)), byteArrays("x"))}}},
	}
}

// Parquet.jl 0.6 writes a page header crc of 0 on every page: a placeholder, not a checksum.
func crcZeroParquetJL() qFile { return crcPages(func(int, []byte) int32 { return 0 }) }

// crcPages is a file whose four pages carry the CRC crc gives for their bodies (page: 0 the
// int32 dictionary, 1 its dictionary-encoded page, 2 its PLAIN page after the writer's
// fallback, 3 the string page): int32 = 10, 20, 10, 30, 40; s = "a", null, "c", null, "e".
func crcPages(crc func(page int, body []byte) int32) qFile {
	c := func(page int, body []byte) *int32 { v := crc(page, body); return &v }
	dict := le32s(10, 20)
	idx := append([]byte{1}, append(rleRun(1, 0, 1), append(rleRun(1, 1, 1), rleRun(1, 0, 1)...)...)...)
	plain := le32s(30, 40)
	strs := append(rleLevels(rleRun(1, 1, 1), rleRun(1, 0, 1), rleRun(1, 1, 1), rleRun(1, 0, 1), rleRun(1, 1, 1)),
		byteArrays("a", "c", "e")...)
	return qFile{
		createdBy: "Parquet.jl",
		elems: []qEl{root(2), {name: "int32", typ: tInt32, rep: format.Required}, {name: "s", typ: tBytes, rep: format.Optional,
			conv: convPtr(format.ConvertedUTF8)}},
		numRows: 5,
		cols: []qCol{
			{typ: format.Int32, path: []string{"int32"}, numValues: 5,
				dict: &qPage{header: dictPageHeaderCRC(len(dict), len(dict), 2, c(0, dict)), body: dict},
				pages: []qPage{
					{header: v1HeaderCRC(len(idx), len(idx), 3, format.RLEDictionary, c(1, idx)), body: idx},
					{header: v1HeaderCRC(len(plain), len(plain), 2, format.Plain, c(2, plain)), body: plain},
				}},
			{typ: format.ByteArray, path: []string{"s"}, numValues: 5,
				pages: []qPage{{header: v1HeaderCRC(len(strs), len(strs), 5, format.Plain, c(3, strs)), body: strs}}},
		},
	}
}

// alpRows is the row count of alp_columns; alpValue gives row i's DOUBLE value as raw bits
// (ok false: null) after parquet-testing's alp_extended.zstd.parquet: two-digit decimals,
// NaNs with payloads, infinities, -0, the smallest subnormal, a full-mantissa value, large
// magnitudes, a stretch where every other value is full-mantissa, four-digit decimals, a
// constant, integers up to ±8e18, and a null every 100 rows.
const alpRows = 4500

func alpValue(i int) (uint64, bool) {
	if i%100 == 0 {
		return 0, false
	}
	v := float64((i*7919)%2001-1000) / 100
	switch seg := i / 512; {
	case i == 513:
		return 0x7ff8000000000000, true
	case i == 701:
		return 0x7ff800deadbeef00, true
	case i == 1023:
		return 0xfff8000000000001, true
	case i == 800:
		v = math.Inf(1)
	case i == 801:
		v = math.Inf(-1)
	case i == 802:
		v = math.Copysign(0, -1)
	case i == 803:
		v = math.SmallestNonzeroFloat64
	case i == 1200:
		v = math.Pi
	case i == 1700:
		v = 44974934523.343
	case i == 1701:
		v = -1243432432.3432
	case seg == 4 && i%2 == 0:
		v = math.Sqrt(float64(i))
	case seg == 5:
		v = float64((i*104729)%200001-100000) / 10000
	case seg == 6:
		v = 7.77
	case i == 4100:
		v = 8e18
	case i == 4101:
		v = -8e18
	case seg == 8 && i%64 < 8:
		v = float64(int64(uint64(i)*0x9E3779B97F4A7C15%8000000000000000000)) * [2]float64{1, -1}[i%2]
	}
	return math.Float64bits(v), true
}

// alpValue32 is the FLOAT column's row i: the DOUBLE narrowed, NaNs with a payload of their
// own.
func alpValue32(i int) (uint32, bool) {
	b, ok := alpValue(i)
	if f := math.Float64frombits(b); ok && math.IsNaN(f) {
		return uint32(b>>32)&0x80000000 | 0x7fc00000 | uint32(b>>8)&0xfff, true
	} else {
		return math.Float32bits(float32(f)), ok
	}
}

var alpEncodings = []format.Encoding{format.ALP, format.RLE}

// Case 11: ALP (AlpEncoding.md, ALP = 10), new in parquet-format and written by arrow C++:
// an optional DOUBLE and an optional FLOAT column in three v1 pages each, with vectors of
// 1024, 32 and 4096 values, nulls every 100 rows. Unlike the other cases this is no writer's
// bug: the builder is the test's only way to get pages of an encoding arrow-go cannot write.
func alpColumns() qFile {
	pages := func(width int) []qPage {
		var out []qPage
		for p, logSize := range []int{10, 5, 12} {
			lo, hi := p*alpRows/3, (p+1)*alpRows/3
			var vals []byte
			var runs [][]byte
			for i := lo; i < hi; {
				_, ok := alpValue(i)
				j := i
				for j < hi {
					if _, ok2 := alpValue(j); ok2 != ok {
						break
					}
					j++
				}
				runs = append(runs, rleRun(j-i, map[bool]int{false: 0, true: 1}[ok], 1))
				i = j
			}
			for i := lo; i < hi; i++ {
				if width == 8 {
					if b, ok := alpValue(i); ok {
						vals = binary.LittleEndian.AppendUint64(vals, b)
					}
				} else if b, ok := alpValue32(i); ok {
					vals = binary.LittleEndian.AppendUint32(vals, b)
				}
			}
			out = append(out, v1Page(hi-lo, format.ALP, format.RLE, format.RLE, rleLevels(runs...),
				encoding.AppendALP(nil, vals, width, logSize)))
		}
		return out
	}
	return qFile{
		createdBy: "parquet-cpp-arrow version 24.0.0",
		elems: []qEl{root(2), {name: "d", typ: typePtr(format.Double), rep: format.Optional},
			{name: "f", typ: typePtr(format.Float), rep: format.Optional}},
		numRows: alpRows,
		cols: []qCol{
			{typ: format.Double, path: []string{"d"}, numValues: alpRows, pages: pages(8), encodings: alpEncodings},
			{typ: format.Float, path: []string{"f"}, numValues: alpRows, pages: pages(4), encodings: alpEncodings},
		},
	}
}
