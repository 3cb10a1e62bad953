// Package listing parses S3 ListObjectsV2 responses and plans their pagination, without doing
// any I/O: the host performs each GET the Pager asks for and pushes the body back.
//
// The response format is the one AWS S3, Cloudflare R2, Google Cloud Storage's XML API and
// MinIO return for `GET ?list-type=2` (with or without the
// http://s3.amazonaws.com/doc/2006-03-01/ namespace). Keys are returned decoded: XML entities
// are resolved by encoding/xml, and when the service says <EncodingType>url</EncodingType> the
// percent-encoded Key, Prefix, Delimiter, StartAfter and CommonPrefixes are decoded too.
// XML is read by a small hand-written reader (xml.go; encoding/xml would add 36 KB brotli to
// the module). ETags are returned without their surrounding quotes (S3 sends `"abc"`, GCS sometimes `abc`),
// so they compare equal across services and can key a footer cache.
//
// The shape follows object_store's aws client (a request per page, driven by
// NextContinuationToken, parsed into plain structs); see DESIGN.md §7.
package listing

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/errf"
)

// Object is one entry of a listing page.
type Object struct {
	Key  string // the full object key, decoded
	Size int64  // bytes; never negative
	// ETag without surrounding quotes; empty when the service sent none. Multipart uploads
	// have ETags like "abc-3": opaque, only ever compared for equality.
	ETag string
	// LastModified as the service wrote it (RFC 3339, e.g. 2009-10-12T17:50:30.000Z). Kept
	// as text: it is only compared for equality (cache validation), and parsing dates would
	// link more of package time's layout machinery into the module for nothing.
	LastModified string
	StorageClass string
}

// Page is one parsed ListObjectsV2 response.
type Page struct {
	Name                  string // the bucket
	Prefix                string
	Delimiter             string
	StartAfter            string
	ContinuationToken     string // the token this page answered, if any
	NextContinuationToken string // the token for the next page; set when IsTruncated
	KeyCount              int    // as reported (-1 when absent); keys + common prefixes
	MaxKeys               int    // as reported (-1 when absent)
	IsTruncated           bool
	Contents              []Object
	CommonPrefixes        []string // decoded; only present when a Delimiter was requested
}

// Parse decodes one ListObjectsV2 response body. An <Error> document is ErrService; anything
// that is not a complete ListBucketResult is ErrMalformed. A truncated page without a
// continuation token is ErrTruncated, returned with the page so far.
func Parse(body []byte) (Page, error) {
	r, err := parseXML(body)
	if err != nil {
		return Page{}, errf.Errorf("%w: %v", ErrMalformed, err)
	}
	switch r.name {
	case "ListBucketResult":
	case "Error":
		return Page{}, errf.Errorf("%w: %s: %s", ErrService, r.child("Code"), r.child("Message"))
	default:
		return Page{}, errf.Errorf("%w: root element <%s>, want <ListBucketResult>", ErrMalformed, r.name)
	}
	dec := func(s string) string { return s }
	enc := r.child("EncodingType")
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "":
	case "url":
		dec = pathenc.Unescape
	default:
		return Page{}, errf.Errorf("%w: unknown EncodingType %q", ErrMalformed, enc)
	}
	p := Page{
		Name:                  r.child("Name"),
		Prefix:                dec(r.child("Prefix")),
		Delimiter:             dec(r.child("Delimiter")),
		StartAfter:            dec(r.child("StartAfter")),
		ContinuationToken:     r.child("ContinuationToken"),
		NextContinuationToken: r.child("NextContinuationToken"),
		KeyCount:              -1,
		MaxKeys:               -1,
	}
	if p.KeyCount, err = optInt(r.child("KeyCount"), "KeyCount"); err != nil {
		return Page{}, err
	}
	if p.MaxKeys, err = optInt(r.child("MaxKeys"), "MaxKeys"); err != nil {
		return Page{}, err
	}
	truncated := r.child("IsTruncated")
	switch strings.TrimSpace(truncated) {
	case "", "false":
	case "true":
		p.IsTruncated = true
	default:
		return Page{}, errf.Errorf("%w: IsTruncated %q", ErrMalformed, truncated)
	}
	for _, o := range r.kids {
		switch o.name {
		case "CommonPrefixes":
			p.CommonPrefixes = append(p.CommonPrefixes, dec(o.child("Prefix")))
			continue
		case "Contents":
		default:
			continue
		}
		i := len(p.Contents)
		key := dec(o.child("Key"))
		if key == "" {
			return Page{}, errf.Errorf("%w: Contents[%d] has no Key", ErrMalformed, i)
		}
		sz := o.child("Size")
		size, err := strconv.ParseInt(strings.TrimSpace(sz), 10, 64)
		if err != nil || size < 0 {
			return Page{}, errf.Errorf("%w: key %q: Size %q", ErrMalformed, key, sz)
		}
		p.Contents = append(p.Contents, Object{
			Key:          key,
			Size:         size,
			ETag:         unquote(o.child("ETag")),
			LastModified: strings.TrimSpace(o.child("LastModified")),
			StorageClass: o.child("StorageClass"),
		})
	}
	if p.IsTruncated && p.NextContinuationToken == "" {
		return p, errf.Errorf("%w (after key %q)", ErrTruncated, p.lastKey())
	}
	return p, nil
}

func (p *Page) lastKey() string {
	if len(p.Contents) == 0 {
		return ""
	}
	return p.Contents[len(p.Contents)-1].Key
}

func optInt(s, field string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errf.Errorf("%w: %s %q", ErrMalformed, field, s)
	}
	return n, nil
}

// unquote strips the quotes S3 puts around an ETag (sent as &quot;…&quot; or literally).
func unquote(etag string) string {
	etag = strings.TrimSpace(etag)
	if len(etag) >= 2 && etag[0] == '"' && etag[len(etag)-1] == '"' {
		return etag[1 : len(etag)-1]
	}
	return etag
}
