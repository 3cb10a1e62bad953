package listing

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that every accepted page satisfies the documented
// invariants (non-empty keys, non-negative sizes, unquoted ETags, a token when truncated), and
// that parsing is deterministic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<20 {
			return
		}
		p, err := Parse(body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrService) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("error outside the sentinels: %v", err)
			}
			return
		}
		for _, o := range p.Contents {
			if o.Key == "" || o.Size < 0 {
				t.Fatalf("invalid object %+v", o)
			}
			if len(o.ETag) >= 2 && o.ETag[0] == '"' && o.ETag[len(o.ETag)-1] == '"' {
				t.Fatalf("quoted etag %q", o.ETag)
			}
		}
		if p.IsTruncated && p.NextContinuationToken == "" {
			t.Fatal("truncated page accepted without token")
		}
		q, err := Parse(body)
		if err != nil || len(q.Contents) != len(p.Contents) {
			t.Fatalf("not deterministic: %v", err)
		}
	})
}
