package iceberg

import (
	"testing"
)

// FuzzDecodeBound: a manifest's lower/upper bound and a transform name are the writer's
// bytes; any of them, for any primitive type, decodes or answers "unknown" without a panic,
// and a decoded bound hashes (bucket pruning) without one either.
func FuzzDecodeBound(f *testing.F) {
	for _, s := range []struct {
		p string
		b []byte
		t string
	}{
		{"int", []byte{1, 0, 0, 0}, "bucket[16]"},
		{"long", []byte{1, 0, 0, 0}, "truncate[4]"},
		{"double", []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, "day"},
		{"decimal(38, 18)", []byte{0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "identity"},
		{"string", []byte("abc"), "bucket[x]"},
		{"boolean", []byte{2}, "void"},
	} {
		f.Add(s.p, s.b, s.t)
	}
	f.Fuzz(func(t *testing.T, p string, b []byte, tr string) {
		_ = ParseTransform(tr)
		v, ok := DecodeBound(p, b)
		if !ok {
			return
		}
		_, _ = BucketHash(p, v)
	})
}
