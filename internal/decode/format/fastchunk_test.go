package format

import (
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// decodeBoth decodes in with the chunk fast path on and off.
func decodeBoth(in []byte) (fast, general *FileMetaData, fastErr, generalErr error) {
	defer func() { fastChunks = true }()
	fastChunks = true
	fast, fastErr = DecodeFileMetaData(in)
	fastChunks = false
	general, generalErr = DecodeFileMetaData(in)
	return
}

func sameDecode(t *testing.T, name string, in []byte) (ok bool) {
	t.Helper()
	fast, general, fe, ge := decodeBoth(in)
	if (fe == nil) != (ge == nil) || (fe != nil && fe.Error() != ge.Error()) {
		t.Fatalf("%s: fast path error %v, table-driven %v", name, fe, ge)
	}
	if !equalNaN(reflect.ValueOf(fast), reflect.ValueOf(general)) {
		t.Fatalf("%s: fast path and table-driven reader decode different values", name)
	}
	return fe == nil
}

// Test_fastChunksCorpus: on every corpus footer, valid or malformed, the fast path gives what
// the table-driven reader gives, error text included; and on the footer with the most chunks
// it allocates far less (so it is taken, not fallen back from).
func Test_fastChunksCorpus(t *testing.T) {
	var decoded int
	for _, name := range corpusFiles(t) {
		meta, _, ok := footer(testcorpus.Read(t, name))
		if ok && sameDecode(t, name, meta) {
			decoded++
		}
	}
	most, mostChunks := largestFooter(t)
	if decoded < 100 || mostChunks < 20 {
		t.Fatalf("only %d footers decoded, at most %d chunks: corpus missing?", decoded, mostChunks)
	}
	allocs := func(fast bool) float64 {
		defer func() { fastChunks = true }()
		fastChunks = fast
		return testing.AllocsPerRun(5, func() { _, _ = DecodeFileMetaData(most) })
	}
	if f, g := allocs(true), allocs(false); f > g/2 {
		t.Fatalf("fast path: %.0f allocations for %d chunks, table-driven %.0f: is the fast path taken?", f, mostChunks, g)
	}
}

// FuzzColumnChunkFast holds the fast path to the table-driven reader on any input.
func FuzzColumnChunkFast(f *testing.F) {
	for _, s := range corpusSeeds(f, 200) {
		f.Add(s.meta)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameDecode(t, "input", in)
	})
}

// largestFooter returns the corpus footer that decodes to the most column chunks.
func largestFooter(tb testing.TB) (most []byte, chunks int) {
	for _, name := range corpusFiles(tb) {
		meta, _, ok := footer(testcorpus.Read(tb, name))
		if !ok {
			continue
		}
		if m, err := DecodeFileMetaData(meta); err == nil {
			n := 0
			for _, g := range m.RowGroups {
				n += len(g.Columns)
			}
			if n > chunks {
				most, chunks = meta, n
			}
		}
	}
	return most, chunks
}

func BenchmarkDecodeFileMetaData(b *testing.B) {
	most, _ := largestFooter(b)
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast", false: "table-driven"}[fast]
		b.Run(name, func(b *testing.B) {
			defer func() { fastChunks = true }()
			fastChunks = fast
			b.SetBytes(int64(len(most)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = DecodeFileMetaData(most)
			}
		})
	}
}
