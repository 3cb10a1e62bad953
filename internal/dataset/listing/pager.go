package listing

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/errf"
)

// Style is how the bucket appears in a listing URL.
type Style uint8

const (
	// VirtualHosted: the bucket is in the host name, `<origin>/?list-type=2&prefix=P`
	// (S3's default, R2 custom domains, most CDNs in front of a bucket).
	VirtualHosted Style = iota
	// PathStyle: `<origin>/<bucket>?list-type=2&prefix=P` (MinIO, S3 path-style, GCS XML API
	// at storage.googleapis.com).
	PathStyle
)

// Request describes one listing: everything but the continuation token.
type Request struct {
	Origin string // scheme://host[:port], optionally with a base path; no query
	Bucket string // required for PathStyle, ignored for VirtualHosted
	Style  Style
	Prefix string // the key prefix to list (not URL-encoded)
	// Delimiter, when "/", makes the service roll keys below the next '/' into
	// CommonPrefixes: a one-level directory listing. Empty lists every key below Prefix.
	Delimiter  string
	StartAfter string // list keys strictly after this one (only sent on the first page)
	MaxKeys    int    // 0: the service's default (1000 on S3)
}

// URL returns the GET URL for the page after the one that returned token ("" for the first
// page). Parameters are percent-encoded with pathenc.Escape, in a fixed order so that
// requests are reproducible and testable byte for byte.
func (r Request) URL(token string) (string, error) {
	origin := strings.TrimRight(r.Origin, "/")
	if origin == "" || strings.ContainsAny(origin, "?#") {
		return "", errf.Errorf("%w: origin %q", ErrBadRequest, r.Origin)
	}
	var b strings.Builder
	b.WriteString(origin)
	b.WriteByte('/')
	if r.Style == PathStyle {
		if r.Bucket == "" || strings.Contains(r.Bucket, "/") {
			return "", errf.Errorf("%w: path-style listing needs a bucket name, got %q", ErrBadRequest, r.Bucket)
		}
		b.WriteString(pathenc.Escape(r.Bucket))
	}
	b.WriteString("?list-type=2")
	if token != "" {
		b.WriteString("&continuation-token=")
		b.WriteString(pathenc.Escape(token))
	}
	if r.Delimiter != "" {
		b.WriteString("&delimiter=")
		b.WriteString(pathenc.Escape(r.Delimiter))
	}
	if r.MaxKeys > 0 {
		b.WriteString("&max-keys=")
		b.WriteString(strconv.Itoa(r.MaxKeys))
	}
	b.WriteString("&prefix=")
	b.WriteString(pathenc.Escape(r.Prefix))
	if r.StartAfter != "" && token == "" {
		b.WriteString("&start-after=")
		b.WriteString(pathenc.Escape(r.StartAfter))
	}
	return b.String(), nil
}

// DefaultMaxPages bounds a listing when Pager.MaxPages is zero: 10,000 pages of 1,000 keys.
const DefaultMaxPages = 10000

// Pager walks a listing page by page, as a state machine: Next gives the URL to GET, Push
// takes the response body, and Next reports done once a page is not truncated. It collects
// every object in listing order (S3 returns keys in ascending UTF-8 byte order).
//
// A Pager is not safe for concurrent use. Pages must be pushed in order: listing pagination
// is inherently sequential (each token comes from the previous page).
type Pager struct {
	Req      Request
	MaxPages int // 0 means DefaultMaxPages

	token   string
	pending bool
	done    bool
	pages   int
	seen    map[string]bool
	objects []Object
	prefix  []string
}

// NewPager returns a Pager for req.
func NewPager(req Request) *Pager { return &Pager{Req: req, seen: map[string]bool{}} }

// Next returns the URL of the next page to fetch, or done=true when the listing is complete.
// Calling Next again before Push returns the same URL.
func (p *Pager) Next() (url string, done bool, err error) {
	if p.done {
		return "", true, nil
	}
	u, err := p.Req.URL(p.token)
	if err != nil {
		return "", false, err
	}
	p.pending = true
	return u, false, nil
}

// Push parses the body of the page Next asked for and decides whether more pages are needed.
// An error leaves the Pager unusable: a listing that failed part-way must not be used as if
// it were complete.
func (p *Pager) Push(body []byte) (Page, error) {
	if !p.pending || p.done {
		return Page{}, errf.Errorf("%w: Push without a pending page", ErrBadRequest)
	}
	p.pending = false
	page, err := Parse(body)
	if err != nil {
		p.done = true
		return page, errf.Errorf("listing page %d (%s): %w", p.pages+1, p.describe(), err)
	}
	p.pages++
	p.objects = append(p.objects, page.Contents...)
	p.prefix = append(p.prefix, page.CommonPrefixes...)
	if !page.IsTruncated {
		p.done = true
		return page, nil
	}
	max := p.MaxPages
	if max <= 0 {
		max = DefaultMaxPages
	}
	next := page.NextContinuationToken
	switch {
	case p.seen[next] || next == p.token:
		p.done = true
		return page, errf.Errorf("%w: page %d of %s returned token %q again", ErrLoop, p.pages, p.describe(), next)
	case p.pages >= max:
		p.done = true
		return page, errf.Errorf("%w: %d pages of %s", ErrTooManyPages, p.pages, p.describe())
	}
	p.seen[next] = true
	p.token = next
	return page, nil
}

func (p *Pager) describe() string {
	if p.Req.Style == PathStyle {
		return errf.Sprintf("%s/%s prefix %q", strings.TrimRight(p.Req.Origin, "/"), p.Req.Bucket, p.Req.Prefix)
	}
	return errf.Sprintf("%s prefix %q", strings.TrimRight(p.Req.Origin, "/"), p.Req.Prefix)
}

// Done reports whether the last page has been pushed (or an error ended the listing).
func (p *Pager) Done() bool { return p.done }

// Pages returns how many pages were pushed successfully.
func (p *Pager) Pages() int { return p.pages }

// Objects returns every object listed so far, in listing order. The slice is the Pager's own.
func (p *Pager) Objects() []Object { return p.objects }

// CommonPrefixes returns every common prefix listed so far (with a Delimiter).
func (p *Pager) CommonPrefixes() []string { return p.prefix }
