package tablehost

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// maxListingPage bounds one ListObjectsV2 response body (1,000 keys are about 300 KB).
const maxListingPage = 16 << 20

// folderListing is one ListObjectsV2 walk of an http(s) folder or glob: the objects in key
// order, and how to make each key a URL again.
type folderListing struct {
	src     string
	sel     glob.Selector
	prefix  string // the folder's key prefix (a folder source: its key, ending in '/')
	objBase string // URL of the bucket's root, before a key
	objects []listing.Object
	// deltaCut is set when the walk stopped early: it saw the whole _delta_log/ range of a
	// folder, so the folder is a Delta table and its data files come from the log.
	deltaCut bool
}

// listHTTP expands a folder (trailing '/') or a glob over an http(s) object store into its
// files, with S3 ListObjectsV2 (the XML S3, R2, GCS's XML API and MinIO return), following
// continuation tokens. The listing gives each file's size and ETag, so no HEAD or size probe
// is sent per file. Virtual-hosted style lists at <origin>/?list-type=2&prefix=…; with
// Options.PathStyleListing the URL's first path segment is the bucket (<origin>/<bucket>?…).
//
// The listing is planned by the sans-IO pager of internal/dataset/listing; the GETs are done
// here. (DESIGN.md §7 wants the engine to request listings itself, so that the JS host shares
// them; until then JS callers pass file lists.)
func (t *Table) listHTTP(ctx context.Context, src, nonce string) error {
	fl, err := t.listFolder(ctx, src, false)
	if err != nil {
		return err
	}
	return t.addListed(fl, nonce)
}

// listFolder walks the listing of src. With stopAtLog (a folder source) the walk ends at the
// first page that goes past the folder's _delta_log/ keys when it saw some: keys come in
// ascending order, so that page holds the whole log, and a Delta table's data files are the
// log's to name, not the listing's (a large table's listing can be thousands of pages).
func (t *Table) listFolder(ctx context.Context, src string, stopAtLog bool) (*folderListing, error) {
	u, err := url.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", openscope.ErrSource, err)
	}
	key := strings.TrimPrefix(pathenc.Unescape(u.EscapedPath()), "/")
	origin := u.Scheme + "://" + u.Host
	req := listing.Request{Origin: origin, Style: listing.VirtualHosted}
	objBase := origin + "/"
	if t.opts.PathStyleListing {
		bucket, rest, ok := strings.Cut(key, "/")
		if !ok || bucket == "" {
			return nil, fmt.Errorf("%w: %s: a path-style listing URL needs a bucket before the key", openscope.ErrSource, src)
		}
		req.Style, req.Bucket, key = listing.PathStyle, bucket, rest
		objBase = origin + "/" + pathenc.EscapePath(bucket) + "/"
	}
	sel := glob.Folder(key)
	if !strings.HasSuffix(src, "/") {
		if sel, err = glob.Glob(key); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", openscope.ErrSource, src, err)
		}
	}
	req.Prefix = sel.Prefix()
	fl := &folderListing{src: src, sel: sel, prefix: key, objBase: objBase}
	logPrefix := key + deltaLogDir
	pager := listing.NewPager(req)
	pages := objectGetter("", t.opts.HTTP, maxListingPage)
	for {
		next, done, err := pager.Next()
		if err != nil {
			return nil, fmt.Errorf("%w: listing %s: %w", openscope.ErrSource, src, err)
		}
		if done {
			break
		}
		body, err := pages.Get(ctx, next)
		if err != nil {
			return nil, fmt.Errorf("%w: listing: %w", openscope.ErrSource, err)
		}
		if _, err := pager.Push(body); err != nil {
			return nil, fmt.Errorf("%w: listing %s: %w", openscope.ErrSource, next, err)
		}
		if objs := pager.Objects(); stopAtLog && !pager.Done() && len(objs) > 0 {
			last := objs[len(objs)-1].Key
			if last > logPrefix && !strings.HasPrefix(last, logPrefix) && ascending(objs) && hasLog(objs, logPrefix) {
				fl.deltaCut = true
				break
			}
		}
	}
	fl.objects = pager.Objects()
	return fl, nil
}

// deltaLogDir is the folder of a Delta table's log, below the table root.
const deltaLogDir = "_delta_log/"

// hasLog reports whether objs hold a key below logPrefix.
func hasLog(objs []listing.Object, logPrefix string) bool {
	for _, o := range objs {
		if strings.HasPrefix(o.Key, logPrefix) {
			return true
		}
	}
	return false
}

// ascending reports whether the keys are in the order S3 promises. The walk stops early only
// then: a service listing out of order could put a log entry after the page that seemed past
// the log, and a snapshot missing a commit would be a wrong table.
func ascending(objs []listing.Object) bool {
	return sort.SliceIsSorted(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
}

// deltaLog returns the folder's _delta_log/ entries as the Delta loader takes them (sizes from
// the listing), or nil when the listing holds no log: then the folder is a plain one.
func (fl *folderListing) deltaLog() []delta.LogFile {
	logPrefix := fl.prefix + deltaLogDir
	if !hasLog(fl.objects, logPrefix) {
		return nil
	}
	out := []delta.LogFile{}
	for _, o := range fl.objects {
		name, ok := strings.CutPrefix(o.Key, logPrefix)
		if !ok || strings.Contains(name, "/") {
			continue // not in the log, or below it (_sidecars/ are named by checkpoints)
		}
		if lf, ok := delta.ParseLogName(name); ok {
			lf.Size = o.Size
			if t, err := time.Parse(time.RFC3339, o.LastModified); err == nil {
				lf.ModTime = t.UnixMilli() // commit times for time travel by timestamp
			}
			out = append(out, lf)
		}
	}
	return out
}

// addListed appends the listed objects the source's selector keeps. Any listed key that leads
// outside the scope (a ".." segment, an escaped one, a key beside the prefix), kept or not,
// fails the open before any file is requested: such a listing is not to be trusted.
func (t *Table) addListed(fl *folderListing, nonce string) error {
	for _, o := range fl.objects {
		u := fl.objBase + escapeKey(o.Key)
		if err := t.scope.CheckURL(u, fmt.Sprintf("the listing of %s (key %q)", fl.src, o.Key)); err != nil {
			return err
		}
	}
	for _, o := range fl.objects {
		if !fl.sel.Keep(o.Key) {
			continue
		}
		ho := t.opts.HTTP
		ho.FileSize = o.Size
		version := nonce
		if o.ETag != "" {
			// The Source holds the file to this ETag (If-Match), so the footer cache may key
			// on it across Opens: opening the dataset again fetches no footer.
			ho.ETag = `"` + o.ETag + `"`
			version = "etag:" + o.ETag
		}
		u := fl.objBase + escapeKey(o.Key)
		t.files = append(t.files, tablescan.File{Path: u, Key: o.Key, Size: o.Size, Version: version})
		t.srcs = append(t.srcs, metacache.NewHTTP(metacache.New(t.opts.MetadataCache), u, ho, false)) // the stored tail, when of this ETag
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
