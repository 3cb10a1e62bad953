package pqscan

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// maxListingPage bounds one ListObjectsV2 response body (1,000 keys are about 300 KB).
const maxListingPage = 16 << 20

// listHTTP expands a folder (trailing '/') or a glob over an http(s) object store into its
// files, with S3 ListObjectsV2 (the XML S3, R2, GCS's XML API and MinIO return), following
// continuation tokens. The listing gives each file's size and ETag, so no HEAD or size probe
// is sent per file. Virtual-hosted style lists at <origin>/?list-type=2&prefix=…; with
// Options.PathStyleListing the URL's first path segment is the bucket (<origin>/<bucket>?…).
//
// The listing is planned by the sans-IO pager of internal/dataset/listing; the GETs are done
// here. (DESIGN.md §7 wants the engine to request listings itself, so that the JS host shares
// them; until then JS callers pass file lists.)
func (d *Dataset) listHTTP(ctx context.Context, src, nonce string) error {
	u, err := url.Parse(src)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	key := strings.TrimPrefix(pathenc.Unescape(u.EscapedPath()), "/")
	origin := u.Scheme + "://" + u.Host
	req := listing.Request{Origin: origin, Style: listing.VirtualHosted}
	objBase := origin + "/"
	if d.opts.PathStyleListing {
		bucket, rest, ok := strings.Cut(key, "/")
		if !ok || bucket == "" {
			return fmt.Errorf("%w: %s: a path-style listing URL needs a bucket before the key", ErrSource, src)
		}
		req.Style, req.Bucket, key = listing.PathStyle, bucket, rest
		objBase = origin + "/" + pathenc.EscapePath(bucket) + "/"
	}
	sel := glob.Folder(key)
	if !strings.HasSuffix(src, "/") {
		if sel, err = glob.Glob(key); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrSource, src, err)
		}
	}
	req.Prefix = sel.Prefix()
	pager := listing.NewPager(req)
	client := d.opts.HTTP.Client
	if client == nil {
		client = http.DefaultClient
	}
	for {
		next, done, err := pager.Next()
		if err != nil {
			return fmt.Errorf("%w: listing %s: %w", ErrSource, src, err)
		}
		if done {
			break
		}
		body, err := getListing(ctx, client, d.opts.HTTP.Header, next)
		if err != nil {
			return err
		}
		if _, err := pager.Push(body); err != nil {
			return fmt.Errorf("%w: listing %s: %w", ErrSource, next, err)
		}
	}
	for _, o := range pager.Objects() {
		if !sel.Keep(o.Key) {
			continue
		}
		ho := d.opts.HTTP
		ho.FileSize = o.Size
		version := nonce
		if o.ETag != "" {
			// The Source holds the file to this ETag (If-Match), so the footer cache may key
			// on it across Opens: opening the dataset again fetches no footer.
			ho.ETag = `"` + o.ETag + `"`
			version = "etag:" + o.ETag
		}
		u := objBase + escapeKey(o.Key)
		d.files = append(d.files, tablescan.File{Path: u, Key: o.Key, Size: o.Size, Version: version})
		d.srcs = append(d.srcs, httpclient.NewHTTP(u, ho))
	}
	return nil
}

// escapeKey escapes an object key for a URL path segment by segment, keeping '=' (Hive
// directories stay readable) and escaping '%' (a key may hold Spark's own escapes literally).
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// getListing GETs one listing page; a status other than 200 is an error naming the URL (the
// service's <Error> document, when it sent one, is in the message).
func getListing(ctx context.Context, client *http.Client, h http.Header, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListingPage+1))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", u, err)
	}
	if len(body) > maxListingPage {
		return nil, fmt.Errorf("%w: listing %s: page larger than %d bytes", ErrSource, u, maxListingPage)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.Join(strings.Fields(string(body)), " ")
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return nil, fmt.Errorf("%w: listing %s: HTTP %d: %s", ErrSource, u, resp.StatusCode, msg)
	}
	return body, nil
}
