package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/golang/snappy"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// tw builds Thrift compact-protocol bytes for hand-made page headers (test only).
type tw []byte

func (b tw) varint(u uint64) tw { return binary.AppendUvarint(b, u) }
func (b tw) zz(v int64) tw      { return b.varint(uint64(v<<1) ^ uint64(v>>63)) }
func (b tw) i32(delta byte, v int32) tw {
	return append(b, delta<<4|5).zz(int64(v))
}
func (b tw) boolean(delta byte, v bool) tw {
	if v {
		return append(b, delta<<4|1)
	}
	return append(b, delta<<4|2)
}
func (b tw) st(delta byte) tw { return append(b, delta<<4|12) }
func (b tw) stop() tw         { return append(b, 0) }

// pageHeader encodes a PageHeader; sub is the encoded sub-header struct (without its field
// header), placed at field id subID.
func pageHeader(pt format.PageType, uncompressed, compressed int, subID byte, sub tw) []byte {
	b := tw(nil).i32(1, int32(pt)).i32(1, int32(uncompressed)).i32(1, int32(compressed))
	b = b.st(subID - 3)
	b = append(b, sub...)
	return b.stop()
}

func dataV1(n int, enc format.Encoding) tw {
	return tw(nil).i32(1, int32(n)).i32(1, int32(enc)).i32(1, int32(format.RLE)).i32(1, int32(format.RLE)).stop()
}

func dictHeader(n int) tw {
	return tw(nil).i32(1, int32(n)).i32(1, int32(format.PlainDictionary)).stop()
}

func dataV2(n, nulls, rows int, enc format.Encoding, defLen, repLen int, compressed bool) tw {
	return tw(nil).i32(1, int32(n)).i32(1, int32(nulls)).i32(1, int32(rows)).i32(1, int32(enc)).
		i32(1, int32(defLen)).i32(1, int32(repLen)).boolean(1, compressed).stop()
}

// rleLevels encodes levels as RLE runs of the hybrid encoding.
func rleLevels(levels []int16, bitWidth int) []byte {
	var b []byte
	for i := 0; i < len(levels); {
		j := i
		for j < len(levels) && levels[j] == levels[i] {
			j++
		}
		b = binary.AppendUvarint(b, uint64(j-i)<<1)
		for k := 0; k < (bitWidth+7)/8; k++ {
			b = append(b, byte(levels[i]>>(8*k)))
		}
		i = j
	}
	return b
}

func lenPrefixed(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func plainStrings(ss ...string) []byte {
	var b []byte
	for _, s := range ss {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// pageFuzzConfigs are the leaf columns FuzzPage reads pages of; the first fuzz byte picks one.
var pageFuzzConfigs = []struct {
	name   string
	schema []format.SchemaElement
}{
	{"required int32", []format.SchemaElement{el("a", req, typ(format.Int32))}},
	{"optional int64", []format.SchemaElement{el("a", opt, typ(format.Int64))}},
	{"list<optional string>", []format.SchemaElement{el("a", opt, children(1), conv(format.ConvertedList)),
		el("list", rpt, children(1)), el("element", opt, typ(format.ByteArray), conv(format.ConvertedUTF8))}},
	{"optional boolean", []format.SchemaElement{el("a", opt, typ(format.Boolean))}},
	{"optional FLBA(5) decimal", []format.SchemaElement{el("a", opt, typ(format.FixedLenByteArray), tlen(5), decimal(10, 2))}},
	{"required INT96", []format.SchemaElement{el("a", req, typ(format.Int96))}},
	{"list<list<int32>>", []format.SchemaElement{el("a", opt, children(1), conv(format.ConvertedList)), el("list", rpt, children(1)),
		el("element", opt, children(1), conv(format.ConvertedList)), el("list", rpt, children(1)), el("element", opt, typ(format.Int32))}},
	{"optional double", []format.SchemaElement{el("a", opt, typ(format.Double))}},
	{"map<string, int8>", []format.SchemaElement{el("m", opt, children(1), conv(format.ConvertedMap)),
		el("key_value", rpt, children(2)), el("key", req, typ(format.ByteArray)), el("value", opt, typ(format.Int32), conv(format.ConvertedInt8))}},
	{"optional byte_array decimal", []format.SchemaElement{el("a", opt, typ(format.ByteArray), decimal(20, 2))}},
}

var pageFuzzCodecs = []format.CompressionCodec{format.Uncompressed, format.Snappy, format.Gzip, format.Zstd}

// pageFuzzSeeds are valid chunks: (config byte, rows, chunk bytes).
func pageFuzzSeeds() [][]byte {
	var seeds [][]byte
	add := func(cfg, rows byte, pages ...[]byte) {
		b := []byte{cfg, rows}
		for _, p := range pages {
			b = append(b, p...)
		}
		seeds = append(seeds, b)
	}
	page := func(hdr func(size int) []byte, body []byte) []byte { return append(hdr(len(body)), body...) }
	v1 := func(n int, enc format.Encoding, body []byte) []byte {
		return page(func(s int) []byte { return pageHeader(format.DataPage, s, s, 5, dataV1(n, enc)) }, body)
	}
	// 0: required int32, PLAIN; dictionary; v2; delta.
	add(0, 3, v1(3, format.Plain, le32(1, 2, 3)))
	dict := page(func(s int) []byte { return pageHeader(format.DictionaryPage, s, s, 7, dictHeader(2)) }, le32(7, 9))
	add(0, 4, dict, v1(4, format.RLEDictionary, []byte{1, 4 << 1, 1, 2 << 1, 0}))
	add(0, 2, page(func(s int) []byte {
		return pageHeader(format.DataPageV2, s, s, 8, dataV2(2, 0, 2, format.Plain, 0, 0, false))
	}, le32(5, 6)))
	add(0, 2, v1(2, format.DeltaBinaryPacked, []byte{0x80, 0x01, 0x04, 0x02, 0x02, 0x00, 0, 0, 0, 0}))
	// 1: optional int64 with nulls: 5, null, 6.
	add(1, 3, v1(3, format.Plain, append(lenPrefixed(rleLevels([]int16{1, 0, 1}, 1)), le64(5, 6)...)))
	def := rleLevels([]int16{1, 0, 1}, 1)
	add(1, 3, page(func(s int) []byte {
		return pageHeader(format.DataPageV2, s, s, 8, dataV2(3, 1, 3, format.Plain, len(def), 0, false))
	}, append(append([]byte(nil), def...), le64(5, 6)...)))
	// 2: list<optional string>: ["a", "b"], null, [], [null].
	rep := lenPrefixed(rleLevels([]int16{0, 1, 0, 0, 0}, 1))
	defs := lenPrefixed(rleLevels([]int16{3, 3, 0, 1, 2}, 2))
	add(2, 4, v1(5, format.Plain, append(append(rep, defs...), plainStrings("a", "b")...)))
	body := append(append(append([]byte(nil), rep...), defs...), plainStrings("a", "b")...)
	comp := snappy.Encode(nil, body)
	add(2|1<<4, 4, append(pageHeader(format.DataPage, len(body), len(comp), 5, dataV1(5, format.Plain)), comp...))
	sdict := page(func(s int) []byte { return pageHeader(format.DictionaryPage, s, s, 7, dictHeader(2)) }, plainStrings("x", "yy"))
	add(2, 4, sdict, v1(5, format.RLEDictionary, append(append(append([]byte(nil), rep...), defs...), 1, 2<<1, 1)))
	// 3: optional boolean: true, null, false, true.
	add(3, 4, v1(4, format.Plain, append(lenPrefixed(rleLevels([]int16{1, 0, 1, 1}, 1)), 0b101)))
	add(3, 4, v1(4, format.RLE, append(lenPrefixed(rleLevels([]int16{1, 0, 1, 1}, 1)), append(le32(2), 3<<1, 1)...)))
	// 4: optional FLBA(5) decimal.
	add(4, 2, v1(2, format.Plain, append(lenPrefixed(rleLevels([]int16{1, 1}, 1)), 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xfe)))
	// 5: required INT96.
	add(5, 1, v1(1, format.Plain, int96(1000, 2440588)))
	// 6: list<list<int32>>: [[1, 2], [], null, [null]], null, [], [[3]].
	add(6, 4, v1(8, format.Plain, append(append(lenPrefixed(rleLevels([]int16{0, 2, 1, 1, 1, 0, 0, 0}, 2)),
		lenPrefixed(rleLevels([]int16{5, 5, 3, 2, 4, 0, 1, 5}, 3))...), le32(1, 2, 3)...)))
	// 7: optional double, BYTE_STREAM_SPLIT.
	add(7, 2, v1(2, format.ByteStreamSplit, append(lenPrefixed(rleLevels([]int16{1, 1}, 1)), make([]byte, 16)...)))
	// 8: map key and value share the levels; FuzzPage reads the key leaf.
	add(8, 2, v1(3, format.Plain, append(append(lenPrefixed(rleLevels([]int16{0, 1, 0}, 1)),
		lenPrefixed(rleLevels([]int16{2, 2, 0}, 2))...), plainStrings("k1", "k2")...)))
	// 9: BYTE_ARRAY decimal with DELTA_LENGTH_BYTE_ARRAY.
	add(9, 1, v1(1, format.Plain, append(lenPrefixed(rleLevels([]int16{1}, 1)), plainStrings("\x01\x00")...)))
	return seeds
}

// readChunk reads a whole fuzzed chunk with a ColumnReader and assembles the result; it
// returns the first error. It must never panic.
func readChunk(data []byte) error {
	if len(data) < 2 {
		return nil
	}
	cfgByte, rows := data[0], int(data[1])
	cfg := pageFuzzConfigs[int(cfgByte&0x0f)%len(pageFuzzConfigs)]
	codec := pageFuzzCodecs[int(cfgByte>>4)&3]
	s, err := BuildSchema(append([]format.SchemaElement{root(1)}, cfg.schema...))
	if err != nil {
		panic(err)
	}
	col := s.Columns[0]
	leaves := col.Leaves(nil)
	leaf := leaves[0]
	cm := &format.ColumnMetaData{Type: *leaf.Node.Elem.Type, Codec: codec}
	cr, err := NewColumnReader(leaf, cm, int64(rows), ReaderOptions{MemoryCap: 1 << 20, VerifyCRC: cfgByte&0x40 != 0})
	if err != nil {
		return err
	}
	chunk := data[2:]
	if cfgByte&0x80 != 0 {
		if err := cr.SetPages(nil, []PageBlob{{Data: chunk, FirstRow: 0}}); err != nil {
			return err
		}
	} else {
		cr.SetChunk(chunk)
	}
	b := &LeafBatch{}
	b.Reset(leaf.Conv.OutWidth)
	// Read in two steps, skipping a row in between when there are enough, as the scan does.
	first := rows / 2
	if err := cr.Read(first, b); err != nil {
		return err
	}
	if err := cr.Read(rows-first, b); err != nil {
		return err
	}
	batches := map[int]*LeafBatch{leaf.Node.Leaf: b}
	if len(leaves) > 1 {
		// A map: the value leaf gets the key's levels with no values (all null values).
		vb := &LeafBatch{}
		vb.Reset(leaves[1].Conv.OutWidth)
		vb.Def, vb.Rep, vb.Entries, vb.Rows = append([]int16(nil), b.Def...), append([]int16(nil), b.Rep...), b.Entries, b.Rows
		for i := range vb.Def {
			vb.Def[i] = min(vb.Def[i], leaves[1].Node.DefLevel-1)
		}
		batches[leaves[1].Node.Leaf] = vb
	}
	arr, err := Assemble(col, rows, func(i int) *LeafBatch { return batches[i] })
	if err != nil {
		return err
	}
	schema := &arrowipc.Schema{Fields: []arrowipc.Field{col.Field}}
	if err := arrowipc.Validate(schema, rows, []*arrowipc.Array{arr}); err != nil {
		panic(fmt.Sprintf("%s: assembled array does not validate: %v", cfg.name, err))
	}
	// Filtering every other row must keep the levels consistent.
	sel := make([]bool, rows)
	for i := range sel {
		sel[i] = i%2 == 0
	}
	for _, l := range leaves {
		FilterRows(batches[l.Node.Leaf], l, sel)
	}
	kept := (rows + 1) / 2
	arr, err = Assemble(col, kept, func(i int) *LeafBatch { return batches[i] })
	if err != nil {
		panic(fmt.Sprintf("%s: assembly fails after FilterRows: %v", cfg.name, err))
	}
	if err := arrowipc.Validate(schema, kept, []*arrowipc.Array{arr}); err != nil {
		panic(fmt.Sprintf("%s: filtered array does not validate: %v", cfg.name, err))
	}
	return nil
}

func Test_pageFuzzSeeds(t *testing.T) {
	for i, seed := range pageFuzzSeeds() {
		if err := readChunk(seed); err != nil {
			t.Errorf("seed %d (%s): %v", i, pageFuzzConfigs[int(seed[0]&0x0f)].name, err)
		}
	}
}

// FuzzPage feeds a page header and body (a fuzzed column chunk) to a ColumnReader for one of
// a few leaf types, codecs and level structures, then assembles and validates what it read:
// it must return an error or a valid Arrow array, never panic, within a 1 MiB memory cap.
func FuzzPage(f *testing.F) {
	for _, s := range pageFuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := readChunk(data)
		if err != nil && !isDecodeError(err) {
			t.Fatalf("error without a decode sentinel: %v", err)
		}
		if err == nil && len(data) > 2 && data[1] > 0 {
			// The same rows read through a selection (select.go), cut by the last byte's bits.
			var sel []RowRun
			for r := int64(0); r < int64(data[1]); r++ {
				if data[len(data)-1]>>(r%8)&1 == 1 || r == 0 {
					sel = append(sel, RowRun{r, r + 1})
				}
			}
			if err := checkSelected(data, sel, 1+int(data[len(data)-1]%3)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// isDecodeError reports whether err wraps a sentinel of this package or of its codecs.
func isDecodeError(err error) bool {
	for _, s := range []error{ErrSchema, ErrPage, ErrLevels, ErrValue, ErrMemory, ErrChecksum, ErrUnsupported} {
		if errors.Is(err, s) {
			return true
		}
	}
	// Page header (format) and codec errors are wrapped with "decode: column …: %w".
	return errors.Unwrap(err) != nil
}

// FuzzSchema builds a schema element list from fuzz bytes (4 bytes per element: type and
// flags, repetition, num_children, annotation) and checks that BuildSchema either fails with
// ErrSchema or gives a schema whose every column assembles an empty batch into an array that
// the IPC encoder accepts.
func FuzzSchema(f *testing.F) {
	f.Add([]byte{0x80, 0, 2, 0, 1, 1, 0, 0, 6, 0, 0, 1})
	f.Add([]byte{0x80, 0, 1, 0, 0x80, 1, 1, 3, 0x80, 2, 1, 0, 1, 1, 0, 0})
	f.Add([]byte{0x80, 0, 1, 0, 0x80, 1, 1, 1, 0x80, 2, 2, 0, 6, 0, 0, 1, 1, 1, 0, 0})
	f.Add([]byte{0x80, 0, 1, 0, 2, 2, 0, 0})
	f.Add([]byte{0x80, 0, 1, 0, 7, 1, 0, 22})
	f.Fuzz(func(t *testing.T, data []byte) {
		var elems []format.SchemaElement
		for i := 0; i+4 <= len(data) && len(elems) < 200; i += 4 {
			tb, rb, nc, ann := data[i], data[i+1], data[i+2], data[i+3]
			e := format.SchemaElement{Name: fmt.Sprint("f", len(elems))}
			if len(elems) > 0 && i%8 == 0 {
				e.Name = "array" // exercise the name-based list rules
			}
			if tb&0x80 == 0 {
				e.Type = ptr(format.Type(tb & 0x0f))
				if tb&0x10 != 0 {
					e.TypeLength = ptr(int32(tb>>5) * 4)
				}
			}
			if rb < 4 {
				e.RepetitionType = ptr(format.FieldRepetitionType(rb))
			}
			if nc != 0 {
				e.NumChildren = ptr(int32(int8(nc)))
			}
			switch {
			case ann == 0:
			case ann <= 22:
				e.ConvertedType = ptr(format.ConvertedType(ann - 1))
				if ann-1 == byte(format.ConvertedDecimal) {
					e.Precision, e.Scale = ptr(int32(nc%80)), ptr(int32(rb%5))
				}
			case ann < 64:
				e.LogicalType = &format.LogicalType{Kind: format.LogicalKind(ann - 23), BitWidth: int8(8 << (nc % 4)), IsSigned: nc&4 != 0,
					Unit: format.TimeUnit(nc % 4), Precision: int32(nc % 80), Scale: int32(rb % 5)}
			}
			elems = append(elems, e)
		}
		s, err := BuildSchema(elems)
		if err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("error without ErrSchema: %v", err)
			}
			return
		}
		empties := map[int]*LeafBatch{}
		for _, c := range s.Columns {
			for _, l := range c.Leaves(nil) {
				b := &LeafBatch{}
				b.Reset(l.Conv.OutWidth)
				empties[l.Node.Leaf] = b
			}
		}
		empty := func(i int) *LeafBatch { return empties[i] }
		var out arrowipc.Schema
		var arrs []*arrowipc.Array
		for _, c := range s.Columns {
			a, err := Assemble(c, 0, empty)
			if err != nil {
				t.Fatalf("column %s: empty batch does not assemble: %v", c.Field.Name, err)
			}
			out.Fields = append(out.Fields, c.Field)
			arrs = append(arrs, a)
			for _, l := range c.Leaves(nil) {
				if l.Conv == nil || l.Node.Leaf < 0 || s.Leaves[l.Node.Leaf] != l.Node {
					t.Fatalf("leaf %v is not the schema's leaf", l.Node.Path)
				}
			}
		}
		if _, err := arrowipc.WriteStream(nil, &out, 0, arrs); err != nil {
			t.Fatalf("accepted schema does not encode: %v", err)
		}
	})
}
