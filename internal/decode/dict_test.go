package decode

import (
	"fmt"
	"testing"

	"github.com/golang/snappy"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_lazyDictionary: a chunk's dictionary page is decoded only when a data page needs it,
// so pages read after the writer fell back to PLAIN never decode it (a broken dictionary is
// then not an error: nothing read depends on it), and a dictionary-encoded page still fails
// clearly on a broken one. Snappy: a dictionary decoded late must not clobber the data
// page's decompressed body (both use the decoder's scratch buffer).
func Test_lazyDictionary(t *testing.T) {
	for _, codec := range []format.CompressionCodec{format.Uncompressed, format.Snappy} {
		t.Run(codec.String(), func(t *testing.T) { testLazyDictionary(t, codec) })
	}
}

func testLazyDictionary(t *testing.T, codec format.CompressionCodec) {
	page := func(pt format.PageType, sub byte, hdr tw, body []byte) []byte {
		comp := body
		if codec == format.Snappy {
			comp = snappy.Encode(nil, body)
		}
		return append(pageHeader(pt, len(body), len(comp), sub, hdr), comp...)
	}
	dictOK := page(format.DictionaryPage, 7, dictHeader(2), le32(7, 9))
	dictBroken := page(format.DictionaryPage, 7, dictHeader(3), le32(7, 9)) // 3 values in 8 bytes
	dictOdd := page(format.DictionaryPage, 7, tw(nil).i32(1, 2).i32(1, int32(format.RLE)).stop(), le32(7, 9))
	plain := page(format.DataPage, 5, dataV1(2, format.Plain), le32(1, 2))
	dict := page(format.DataPage, 5, dataV1(2, format.RLEDictionary), []byte{1, 2 << 1, 1})
	// Eight RLE runs of one index each: a body longer than the dictionary's.
	runs := page(format.DataPage, 5, dataV1(8, format.RLEDictionary), []byte{1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1})
	tests := []struct {
		name   string
		dict   []byte
		pages  [][]byte
		chunk  bool // SetChunk of dict + pages instead of SetPages
		rows   int  // 0: two per page
		want   []int32
		err    string
		errSet string // the error of SetPages
	}{
		{name: "plain pages, broken dictionary", dict: dictBroken, pages: [][]byte{plain}, want: []int32{1, 2}},
		{name: "plain pages, broken dictionary, chunk", dict: dictBroken, pages: [][]byte{plain}, chunk: true, want: []int32{1, 2}},
		{name: "dictionary page", dict: dictOK, pages: [][]byte{dict}, want: []int32{9, 9}},
		{name: "fallback", dict: dictOK, pages: [][]byte{dict, plain}, want: []int32{9, 9, 1, 2}},
		{name: "fallback, chunk", dict: dictOK, pages: [][]byte{dict, plain}, chunk: true, want: []int32{9, 9, 1, 2}},
		{name: "long dictionary-encoded page", dict: dictOK, pages: [][]byte{runs}, rows: 8, want: []int32{7, 9, 7, 9, 7, 9, 7, 9}},
		{name: "dictionary page, broken dictionary", dict: dictBroken, pages: [][]byte{plain, dict}, err: "column a: 3 PLAIN values"},
		{name: "dictionary encoding checked at once", dict: dictOdd, pages: [][]byte{plain}, errSet: "dictionary page encoding RLE"},
		{name: "second dictionary page", dict: dictOK, pages: [][]byte{dictOK, plain}, chunk: true, err: "a second dictionary page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := BuildSchema([]format.SchemaElement{root(1), el("a", req, typ(format.Int32))})
			require.NoError(t, err)
			leaf := s.Columns[0].Leaves(nil)[0]
			rows := tc.rows
			if rows == 0 {
				rows = 2 * len(tc.pages)
			}
			cr, err := NewColumnReader(leaf, &format.ColumnMetaData{Type: format.Int32, Codec: codec}, int64(rows), ReaderOptions{MemoryCap: 1 << 20})
			require.NoError(t, err)
			if tc.chunk {
				chunk := append([]byte(nil), tc.dict...)
				for _, p := range tc.pages {
					chunk = append(chunk, p...)
				}
				cr.SetChunk(chunk)
			} else {
				blobs := make([]PageBlob, len(tc.pages))
				for i, p := range tc.pages {
					blobs[i] = PageBlob{Data: p, FirstRow: int64(2 * i)}
				}
				err := cr.SetPages(tc.dict, blobs)
				if tc.errSet != "" {
					require.ErrorContains(t, err, tc.errSet)
					return
				}
				require.NoError(t, err)
			}
			b := &LeafBatch{}
			b.Reset(leaf.Conv.OutWidth)
			err = cr.Read(rows, b)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got := make([]int32, b.Vals.N)
			for i := range got {
				got[i] = int32(uint32(b.Vals.Fixed[4*i]) | uint32(b.Vals.Fixed[4*i+1])<<8 | uint32(b.Vals.Fixed[4*i+2])<<16 | uint32(b.Vals.Fixed[4*i+3])<<24)
			}
			require.Equal(t, fmt.Sprint(tc.want), fmt.Sprint(got))
		})
	}
}
