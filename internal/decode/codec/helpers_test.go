package codec

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Encoders used only by tests: the libraries' own compressors produce the inputs, so the
// round trips check this package against independent implementations.

func compressSnappy(t testing.TB, b []byte) []byte { return snappy.Encode(nil, b) }

func compressGzip(t testing.TB, b []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func compressBrotli(t testing.TB, b []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, level)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compressZstd writes one frame with the content size in its header (EncodeAll).
func compressZstd(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// compressZstdStream writes through the streaming encoder, whose frames may omit the content
// size, as streaming writers do.
func compressZstdStream(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compressLZ4Block returns one raw LZ4 block made by pierrec/lz4.
func compressLZ4Block(t testing.TB, b []byte) []byte {
	t.Helper()
	if len(b) == 0 {
		return []byte{0} // a single token: no literals, end of block
	}
	var c lz4.Compressor
	out := make([]byte, lz4.CompressBlockBound(len(b)))
	n, err := c.CompressBlock(b, out)
	if err != nil || n == 0 {
		t.Fatalf("lz4 compress: n=%d err=%v", n, err)
	}
	return out[:n]
}

// compressHadoopLZ4 splits b into chunks of at most chunk bytes, each its own Hadoop frame.
func compressHadoopLZ4(t testing.TB, b []byte, chunk int) []byte {
	t.Helper()
	var out []byte
	for first := true; first || len(b) > 0; first = false {
		n := min(chunk, len(b))
		blk := compressLZ4Block(t, b[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
		out = append(out, blk...)
		b = b[n:]
	}
	return out
}

// sample returns n bytes of a mix of text-like repetition and noise, deterministic in seed.
func sample(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	words := [][]byte{[]byte("parquet "), []byte("page "), []byte("column"), {0, 0, 0, 1}, []byte("\xff\xfe")}
	b := make([]byte, 0, n)
	for len(b) < n {
		if r.IntN(4) == 0 {
			b = append(b, byte(r.Uint32()))
		} else {
			b = append(b, words[r.IntN(len(words))]...)
		}
	}
	return b[:n]
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
