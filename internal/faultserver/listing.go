package faultserver

import (
	"encoding/xml"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Listing faults: Options.ListFault applies one to every listing (a listing's URL path is the
// bucket's, so it cannot carry a /fault/<mode>/ prefix).
const (
	ModeListError     = "list-error"     // 503 with an S3 <Error> document, every time
	ModeListTruncated = "list-truncated" // IsTruncated=true without a NextContinuationToken
	ModeListLoop      = "list-loop"      // every page is truncated with the same token
	ModeList503Once   = "list-503-once"  // each page's first request: 503 with Retry-After
	ModeList429Once   = "list-429-once"  // each page's first request: 429 with Retry-After
)

// listXML is the ListObjectsV2 response S3 returns (namespace included).
type listXML struct {
	XMLName               xml.Name  `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  string    `xml:"Name"`
	Prefix                string    `xml:"Prefix"`
	KeyCount              int       `xml:"KeyCount"`
	MaxKeys               int       `xml:"MaxKeys"`
	IsTruncated           bool      `xml:"IsTruncated"`
	ContinuationToken     string    `xml:"ContinuationToken,omitempty"`
	NextContinuationToken string    `xml:"NextContinuationToken,omitempty"`
	StartAfter            string    `xml:"StartAfter,omitempty"`
	Contents              []listObj `xml:"Contents"`
}

type listObj struct {
	Key          string `xml:"Key"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
	StorageClass string `xml:"StorageClass"`
}

// isListing reports whether r is a ListObjectsV2 request.
func isListing(r *http.Request) bool { return r.URL.Query().Get("list-type") == "2" }

// serveListing answers ListObjectsV2 over the registered blobs and the files under Dir, as S3
// does: keys in ascending byte order, prefix, start-after, max-keys (default ListPageSize or
// 1000) and continuation tokens. bucket is "" for virtual-hosted style (the whole server is
// the bucket), else the path-style bucket: its keys are the names below "<bucket>/".
func (s *Server) serveListing(w http.ResponseWriter, r *http.Request, mode, bucket string) {
	q := r.URL.Query()
	if s.opt.ListFault != "" {
		mode = s.opt.ListFault
	}
	if mode == ModeListError {
		// Retry-After as the once modes send it (Options.RetryAfter, 0 by default): clients
		// retry a 503, and the retries of a listing that never recovers cost tests no wait.
		w.Header().Set("Retry-After", strconv.Itoa(s.opt.RetryAfter))
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
		return
	}
	if mode == ModeList503Once || mode == ModeList429Once {
		// Attempts count per page (its query), so every page fails once; the failed request
		// is counted here, the good one below.
		s.mu.Lock()
		s.attempts["/?"+r.URL.RawQuery]++
		first := s.attempts["/?"+r.URL.RawQuery] == 1
		if first {
			s.pathStats("/?list-type=2").Requests++
		}
		s.mu.Unlock()
		if first {
			s.refuse(w, mode, mode == ModeList429Once)
			return
		}
	}
	maxKeys := s.opt.ListPageSize
	if maxKeys <= 0 {
		maxKeys = 1000
	}
	if v := q.Get("max-keys"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < maxKeys {
			maxKeys = n
		}
	}
	prefix, after := q.Get("prefix"), q.Get("start-after")
	if tok := q.Get("continuation-token"); tok != "" {
		after = strings.TrimPrefix(tok, "after:")
	}
	res := listXML{Name: bucket, Prefix: prefix, MaxKeys: maxKeys, ContinuationToken: q.Get("continuation-token"), StartAfter: q.Get("start-after")}
	if res.Name == "" {
		res.Name = "faultserver"
	}
	for _, o := range s.objects(bucket) {
		if !strings.HasPrefix(o.Key, prefix) || o.Key <= after {
			continue
		}
		if len(res.Contents) == maxKeys {
			res.IsTruncated = true
			res.NextContinuationToken = "after:" + res.Contents[len(res.Contents)-1].Key
			break
		}
		res.Contents = append(res.Contents, o)
	}
	switch mode {
	case ModeListTruncated:
		res.IsTruncated, res.NextContinuationToken = true, ""
	case ModeListLoop:
		res.IsTruncated, res.NextContinuationToken = true, "after:"
	}
	res.KeyCount = len(res.Contents)
	s.mu.Lock()
	s.pathStats("/?list-type=2").Requests++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/xml")
	fmt.Fprint(w, xml.Header)
	if err := xml.NewEncoder(w).Encode(res); err != nil {
		return
	}
}

// objects lists every key of the bucket, sorted.
func (s *Server) objects(bucket string) []listObj {
	seen := map[string]bool{}
	var out []listObj
	add := func(name string, b blob) {
		key := name
		if bucket != "" {
			k, ok := strings.CutPrefix(name, bucket+"/")
			if !ok {
				return
			}
			key = k
		}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, listObj{Key: key, Size: b.size, ETag: b.etag, StorageClass: "STANDARD",
			LastModified: b.modTime.UTC().Format("2006-01-02T15:04:05.000Z")})
	}
	s.mu.Lock()
	for name, b := range s.blobs {
		add(name, b)
	}
	s.mu.Unlock()
	if s.opt.Dir != "" {
		filepath.WalkDir(s.opt.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(s.opt.Dir, p)
			if err != nil {
				return nil
			}
			if b, err := s.open(filepath.ToSlash(rel)); err == nil {
				if b.closer != nil {
					b.closer.Close()
				}
				add(filepath.ToSlash(rel), b)
			}
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
