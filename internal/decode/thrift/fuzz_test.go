package thrift

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// FuzzCompact skips arbitrary input as a struct. It must never panic, never read past the
// input, and agree with a second pass that walks the same struct field by field.
func FuzzCompact(f *testing.F) {
	f.Add(allTypes())
	f.Add([]byte{0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x0f})
	if root, ok := testcorpus.Find(); ok {
		for _, name := range []string{
			"parquet-testing/data/alltypes_plain.parquet",
			"parquet-testing/data/nested_structs.rust.parquet",
			"hyparquet/page_index.parquet",
			"parquet-testing/data/unknown-logical-type.parquet",
		} {
			if b, err := os.ReadFile(filepath.Join(root, name)); err == nil && len(b) > 8 {
				n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
				if n <= len(b)-8 {
					f.Add(b[len(b)-8-n : len(b)-8])
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(in)
		err := r.Skip(Struct)
		if r.Offset() > len(in) {
			t.Fatalf("offset %d past input %d", r.Offset(), len(in))
		}
		// Walk again with ReadStruct at the top level: same outcome, same end offset.
		r2 := NewReader(in)
		err2 := r2.ReadStruct(func(_ int16, typ Type) error { return r2.Skip(typ) })
		if (err == nil) != (err2 == nil) || (err == nil && r.Offset() != r2.Offset()) {
			t.Fatalf("Skip: %v at %d; ReadStruct: %v at %d", err, r.Offset(), err2, r2.Offset())
		}
	})
}
