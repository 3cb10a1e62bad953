package decode

import (
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// crcPage encodes an uncompressed page whose header carries crc (field 4) when crc is not nil.
func crcPage(pt format.PageType, subID byte, sub tw, body []byte, crc *uint32) []byte {
	b := tw(nil).i32(1, int32(pt)).i32(1, int32(len(body))).i32(1, int32(len(body)))
	last := byte(3)
	if crc != nil {
		b, last = b.i32(1, int32(*crc)), 4
	}
	b = append(b.st(subID-last), sub...).stop()
	return append(b, body...)
}

// Test_pageCRC: a stored CRC is checked against the page body as stored; a CRC of 0 is a
// writer's placeholder (Parquet.jl writes 0 on every page) and is counted as unverified, not
// compared; with verification off every stored CRC is counted as unverified; a page without
// a CRC counts nowhere. Dictionary pages follow the same rule as data pages.
func Test_pageCRC(t *testing.T) {
	dictBody, dataBody := le32(7, 9), []byte{1, 2 << 1, 1} // RLE: index 1 twice
	good := func(b []byte) *uint32 { c := crc32.ChecksumIEEE(b); return &c }
	wrong := func(b []byte) *uint32 { c := crc32.ChecksumIEEE(b) ^ 1; return &c }
	zero := func([]byte) *uint32 { c := uint32(0); return &c }
	none := func([]byte) *uint32 { return nil }
	tests := []struct {
		name       string
		dict, data func([]byte) *uint32
		noVerify   bool
		unverified int
		err        string
	}{
		{name: "no CRC", dict: none, data: none},
		{name: "right CRCs", dict: good, data: good},
		{name: "CRC 0 on every page", dict: zero, data: zero, unverified: 2},
		{name: "CRC 0 on the data page, right on the dictionary", dict: good, data: zero, unverified: 1},
		{name: "wrong data page CRC", dict: good, data: wrong, err: "page checksum mismatch: column a: CRC"},
		{name: "wrong dictionary page CRC", dict: wrong, data: zero, err: "page checksum mismatch: column a: CRC"},
		{name: "wrong CRCs, verification off", dict: wrong, data: wrong, noVerify: true, unverified: 2},
		{name: "CRC 0, verification off", dict: zero, data: zero, noVerify: true, unverified: 2},
		{name: "no CRC, verification off", dict: none, data: none, noVerify: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema([]format.SchemaElement{root(1), el("a", req, typ(format.Int32))})
			require.NoError(t, err)
			leaf := s.Columns[0].Leaves(nil)[0]
			unverified := 0
			cr, err := NewColumnReader(leaf, &format.ColumnMetaData{Type: format.Int32}, 2,
				ReaderOptions{MemoryCap: 1 << 20, VerifyCRC: !tc.noVerify, Unverified: &unverified})
			require.NoError(t, err)
			chunk := crcPage(format.DictionaryPage, 7, dictHeader(2), dictBody, tc.dict(dictBody))
			chunk = append(chunk, crcPage(format.DataPage, 5, dataV1(2, format.RLEDictionary), dataBody, tc.data(dataBody))...)
			cr.SetChunk(chunk)
			b := &LeafBatch{}
			b.Reset(leaf.Conv.OutWidth)
			err = cr.Read(2, b)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrChecksum)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, fmt.Sprint(le32(9, 9)), fmt.Sprint(b.Vals.Fixed))
			require.Equal(t, tc.unverified, unverified)
		})
	}
}
