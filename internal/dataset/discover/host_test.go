package discover_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/protocol"
)

// memHost is an in-memory object store answering a discovery: over HTTP (an S3-style
// endpoint at origin, listing maxKeys keys a page when lists is set) or as a local file
// system (keys are absolute paths). log records every request, in order.
type memHost struct {
	objs    map[string][]byte // by key: "t/_delta_log/….json", or "/data/t/…" locally
	origin  string            // HTTP: "https://bucket.test"; "" for a local host
	root    string            // the table's key prefix ("t/") or folder ("/data/t/")
	lists   bool
	maxKeys int
	// pages overrides the body of the listing pages whose URL contains the key.
	pages map[string]string
	// refuse answers the first refuse listing pages with a page the engine cannot use.
	refuse int
	log    []string
}

var errHTTP404 = errors.New("HTTP 404")

// load adds the files below dir as keys under prefix.
func (h *memHost) load(dir, prefix string) error {
	if h.objs == nil {
		h.objs = map[string][]byte{}
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		h.objs[prefix+filepath.ToSlash(rel)] = b
		return err
	})
}

func (h *memHost) keys(prefix string) []string {
	var ks []string
	for k := range h.objs {
		if strings.HasPrefix(k, prefix) {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

func (h *memHost) Object(_ context.Context, o discover.Object) ([]byte, bool, error) {
	h.log = append(h.log, o.Kind+" "+o.Path)
	switch o.Kind {
	case protocol.ObjectPage:
		b, err := h.page(o.Path)
		if err != nil {
			if o.Optional {
				return nil, false, nil
			}
			return nil, false, err
		}
		return b, true, nil
	case protocol.ObjectStat:
		p := h.root + o.Path
		if _, ok := h.objs[p]; ok {
			return []byte("file"), true, nil
		}
		if len(h.keys(strings.TrimSuffix(p, "/")+"/")) > 0 {
			return []byte("dir"), true, nil
		}
		return []byte("no such file or directory"), false, nil
	case protocol.ObjectWalk:
		dir := o.Path
		if !o.Absolute {
			dir = h.root + o.Path
		}
		var rel []string
		for _, k := range h.keys(dir) {
			rel = append(rel, k[len(dir):])
		}
		if rel == nil {
			return []byte("no such file or directory"), false, nil
		}
		b, _ := json.Marshal(rel)
		return b, true, nil
	case "list":
		dir := h.root + o.Path
		var es []deltasession.ListEntry
		for _, k := range h.keys(dir) {
			if !strings.Contains(k[len(dir):], "/") {
				es = append(es, deltasession.ListEntry{Name: k[len(dir):], Size: int64(len(h.objs[k]))})
			}
		}
		b, _ := json.Marshal(es)
		return b, true, nil
	case "get":
		if o.Absolute {
			return nil, false, fmt.Errorf("%s is outside the table", o.Path)
		}
		b, ok := h.objs[h.root+o.Path]
		return b, ok, nil
	}
	return nil, false, fmt.Errorf("unknown kind %q", o.Kind)
}

func (h *memHost) Range(_ context.Context, path string, off, n int64) ([]byte, int64, error) {
	h.log = append(h.log, fmt.Sprintf("range %s %d %d", path, off, n))
	b, ok := h.objs[h.root+path]
	if !ok {
		return nil, 0, fmt.Errorf("%s: %w", path, errHTTP404)
	}
	size := int64(len(b))
	if off < 0 {
		off, n = max(size+off, 0), -off
	}
	return b[off:min(off+n, size)], size, nil
}

// page answers a ListObjectsV2 GET: the keys under prefix after the continuation token
// (the last key of the previous page), maxKeys of them.
func (h *memHost) page(raw string) ([]byte, error) {
	if h.refuse > 0 {
		h.refuse--
		return []byte("<html>"), nil
	}
	for k, body := range h.pages {
		if strings.Contains(raw, k) {
			return []byte(body), nil
		}
	}
	if !h.lists {
		return nil, errHTTP404
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	if q.Get("list-type") != "2" || u.Scheme+"://"+u.Host != h.origin {
		return nil, fmt.Errorf("bad listing request %s", raw)
	}
	prefix, after := q.Get("prefix"), q.Get("continuation-token")
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	n := 0
	last := ""
	truncated := false
	for _, k := range h.keys(prefix) {
		if k <= after {
			continue
		}
		if h.maxKeys > 0 && n == h.maxKeys {
			truncated = true
			break
		}
		fmt.Fprintf(&b, "<Contents><Key>%s</Key><LastModified>2024-01-02T03:04:05.678Z</LastModified><ETag>&quot;e%d&quot;</ETag><Size>%d</Size></Contents>", html.EscapeString(k), len(h.objs[k]), len(h.objs[k]))
		last = k
		n++
	}
	fmt.Fprintf(&b, "<IsTruncated>%v</IsTruncated>", truncated)
	if truncated {
		fmt.Fprintf(&b, "<NextContinuationToken>%s</NextContinuationToken>", html.EscapeString(last))
	}
	b.WriteString("</ListBucketResult>")
	return []byte(b.String()), nil
}

func (h *memHost) count(prefix string) int {
	n := 0
	for _, l := range h.log {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func i64(v int64) *int64 { return &v }

var _ = strconv.Itoa
