package codec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand"
	"testing"
)

func BenchmarkGzipPage(b *testing.B) {
	// A page-like payload: 128K int64 values with small deltas and some repeats.
	raw := make([]byte, 0, 1<<20)
	r := rand.New(rand.NewSource(1))
	v := int64(1e12)
	for len(raw) < 1<<20 {
		v += int64(r.Intn(1000))
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(raw)
	w.Close()
	src := buf.Bytes()
	dst := make([]byte, len(raw))
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := Decompress(dst, Gzip, src, len(raw), len(raw))
		if err != nil || len(out) != len(raw) {
			b.Fatal(err)
		}
	}
}
