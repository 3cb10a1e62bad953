package listing

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seedXML adds every handwritten response under testdata/ to the corpus.
func seedXML(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParse checks that Parse never panics, that every accepted page satisfies the documented
// invariants (non-empty keys, non-negative sizes, unquoted ETags, a token when truncated), and
// that parsing is deterministic.
func FuzzParse(f *testing.F) {
	seedXML(f)
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

// refResult is the reference decoding with encoding/xml (test-only: the module does not link it).
type refResult struct {
	XMLName  xml.Name
	Contents []struct {
		Key  string `xml:"Key"`
		Size string `xml:"Size"`
		ETag string `xml:"ETag"`
	} `xml:"Contents"`
	NextContinuationToken string `xml:"NextContinuationToken"`
}

// FuzzParseDifferential checks the hand-written XML reader against encoding/xml: whenever
// both accept a ListBucketResult without EncodingType, they must agree on every key, ETag and
// the continuation token. (The two may differ on acceptance of exotic documents; a document
// encoding/xml rejects but Parse accepts is only reported when it hides a key mismatch.)
func FuzzParseDifferential(f *testing.F) {
	seedXML(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<20 || bytes.Contains(body, []byte("EncodingType")) {
			return
		}
		p, err := Parse(body)
		if err != nil {
			return
		}
		var r refResult
		d := xml.NewDecoder(bytes.NewReader(body))
		d.Strict = true
		if d.Decode(&r) != nil {
			return
		}
		if r.NextContinuationToken != p.NextContinuationToken {
			t.Fatalf("token: ref %q, got %q", r.NextContinuationToken, p.NextContinuationToken)
		}
		if len(r.Contents) != len(p.Contents) {
			t.Fatalf("contents: ref %d, got %d", len(r.Contents), len(p.Contents))
		}
		for i, o := range r.Contents {
			if o.Key != p.Contents[i].Key || unquote(o.ETag) != p.Contents[i].ETag {
				t.Fatalf("object %d: ref %q %q, got %q %q", i, o.Key, o.ETag, p.Contents[i].Key, p.Contents[i].ETag)
			}
		}
	})
}
