package bench

import (
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// BenchmarkZstdPages decompresses every page of BenchmarkDecode's file with klauspost's
// DecodeAll, into an output buffer capped at exactly the page's uncompressed size (what
// internal/decode/codec does) and into one with 64 bytes of slack: without slack, klauspost must use
// its bounds-exact ("safe") sequence copies for every block.
func BenchmarkZstdPages(b *testing.B) {
	file := decodeFile(b)
	l, err := NewLayout(file)
	if err != nil {
		b.Fatal(err)
	}
	type page struct {
		src []byte
		n   int
	}
	var pages []page
	var total int64
	for _, row := range l.Chunks {
		for _, ch := range row {
			rs := []Page{{Range: ch.Dict}}
			if ch.Dict.Len == 0 {
				rs = nil
			}
			for _, p := range append(rs, ch.Pages...) {
				body := file[p.Off:p.End()]
				h, hn, err := format.DecodePageHeader(body)
				if err != nil {
					b.Fatal(err)
				}
				pages = append(pages, page{body[hn:], int(h.UncompressedPageSize)})
				total += int64(len(body) - hn)
			}
		}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		b.Fatal(err)
	}
	defer dec.Close()
	for _, tc := range []struct {
		name  string
		slack int
	}{{"exact", 0}, {"slack64", 64}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(total)
			buf := make([]byte, 0, 4<<20)
			for b.Loop() {
				for _, p := range pages {
					if cap(buf) < p.n+tc.slack {
						buf = make([]byte, 0, p.n+tc.slack)
					}
					out, err := dec.DecodeAll(p.src, buf[:0:p.n+tc.slack])
					if err != nil || len(out) != p.n {
						b.Fatalf("page: %v (%d of %d bytes)", err, len(out), p.n)
					}
				}
			}
		})
	}
}
