package iceberg

import (
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/pqscan/pqscan/internal/errf"
)

// Finding the current metadata file of a table folder (spec § File System Tables; what
// writers actually leave): metadata/version-hint.text holds a version number ("5", "5\n") or
// a metadata file's stem ("00002-<uuid>"); without a hint, the metadata file with the highest
// version among the listed vN.metadata.json / NNNNN-<uuid>.metadata.json is current. Any of
// them may be gzipped: vN.gz.metadata.json, vN.metadata.json.gz.

// HintFiles are the version hint names a folder may hold, in the order they are trusted.
var HintFiles = []string{"metadata/version-hint.text", "metadata/version-hint.txt"}

// MetadataVersion parses a metadata file name: its version (vN, or the NNNNN before the
// first '-') and whether it is a metadata file at all.
func MetadataVersion(name string) (int64, bool) {
	stem, ok := metadataStem(path.Base(name))
	if !ok {
		return 0, false
	}
	if strings.HasPrefix(stem, "v") {
		n, err := strconv.ParseInt(stem[1:], 10, 64)
		return n, err == nil && n >= 0
	}
	num, _, _ := strings.Cut(stem, "-")
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil && n >= 0
}

// IsMetadataFile reports whether the path or URL s names a table metadata file.
func IsMetadataFile(s string) bool {
	_, ok := MetadataVersion(path.Base(s))
	return ok || strings.HasSuffix(s, ".metadata.json")
}

// SplitMetadataPath splits a metadata file's slash-separated path or URL into the table root
// (the folder above the one holding it, ending in '/') and the file relative to it
// ("metadata/v3.metadata.json").
func SplitMetadataPath(s string) (root, meta string) {
	dir, file := path.Split(s)
	parent, sub := path.Split(strings.TrimSuffix(dir, "/"))
	if parent == "" {
		parent = "./"
	}
	return parent, sub + "/" + file
}

// metadataStem is name without its metadata suffix (.metadata.json, .gz.metadata.json,
// .metadata.json.gz).
func metadataStem(name string) (string, bool) {
	for _, suf := range []string{".gz.metadata.json", ".metadata.json.gz", ".metadata.json"} {
		if s, ok := strings.CutSuffix(name, suf); ok && s != "" {
			return s, true
		}
	}
	return "", false
}

// Newest is the listed metadata file (names relative to metadata/) with the highest
// version; ties go to the greatest name. ok is false when none is a metadata file.
func Newest(names []string) (string, bool) {
	best, bv := "", int64(-1)
	for _, n := range names {
		if strings.Contains(n, "/") {
			continue
		}
		if v, ok := MetadataVersion(n); ok && (v > bv || v == bv && n > best) {
			best, bv = n, v
		}
	}
	return best, bv >= 0
}

// HintCandidates are the metadata file names (relative to metadata/) a version hint points
// at, most likely first: for a number N, vN.metadata.json and its gzipped forms; for a file
// stem or name, that file.
func HintCandidates(hint []byte) ([]string, error) {
	h := strings.TrimSpace(string(hint))
	h = path.Base(h)
	if h == "" || h == "." || h == "/" || len(h) > 1024 {
		return nil, errf.Errorf("%w: version hint %q", ErrMalformed, hint)
	}
	if _, err := strconv.ParseInt(h, 10, 64); err == nil {
		return []string{"v" + h + ".metadata.json", "v" + h + ".gz.metadata.json", "v" + h + ".metadata.json.gz"}, nil
	}
	if _, ok := metadataStem(h); ok {
		return []string{h}, nil
	}
	return []string{h + ".metadata.json", h + ".gz.metadata.json"}, nil
}

// FromHint picks the metadata file a hint names among listed names (relative to metadata/):
// a candidate, else for a number N the NNNNN-<uuid>.metadata.json of version N.
func FromHint(hint []byte, names []string) (string, bool) {
	cands, err := HintCandidates(hint)
	if err != nil {
		return "", false
	}
	for _, c := range cands {
		for _, n := range names {
			if n == c {
				return n, true
			}
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(hint)), 10, 64)
	if err != nil {
		return "", false
	}
	var pick []string
	for _, n := range names {
		if nv, ok := MetadataVersion(n); ok && nv == v && !strings.HasPrefix(n, "v") {
			pick = append(pick, n)
		}
	}
	return Newest(pick)
}

// maxMetadataBytes caps a decompressed metadata file (they are KiB to a few MiB).
const maxMetadataBytes = 256 << 20

// Decompress returns a metadata file's JSON: gzipped files (by name or by their magic) are
// inflated, within a cap.
func Decompress(name string, b []byte) ([]byte, error) {
	if !strings.HasSuffix(name, ".gz.metadata.json") && !strings.HasSuffix(name, ".gz") && !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return b, nil
	}
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, errf.Errorf("%w: %s: %v", ErrMalformed, name, err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxMetadataBytes+1))
	if err != nil {
		return nil, errf.Errorf("%w: %s: %v", ErrMalformed, name, err)
	}
	if len(out) > maxMetadataBytes {
		return nil, errf.Errorf("%w: %s inflates past %d bytes", ErrMalformed, name, maxMetadataBytes)
	}
	return out, nil
}

// Relative maps a path the metadata names (a manifest list, a manifest, a data file) onto
// the folder the table was read from: the table location's prefix is cut off. Tables are
// copied, so the location's scheme and host (s3://bucket, s3a://, gs://, hdfs://host:port,
// file:, or none for a bare absolute path) need not be where the folder is; only the part
// below the location counts. A path under a different location is ErrOutsideTable.
func Relative(location, p string) (string, error) {
	loc := strings.TrimRight(location, "/")
	if rest, ok := strings.CutPrefix(p, loc+"/"); ok && rest != "" {
		return rest, nil
	}
	lp, pp := uriPath(loc), uriPath(p)
	if rest, ok := strings.CutPrefix(pp, strings.TrimRight(lp, "/")+"/"); ok && rest != "" && lp != "" {
		return rest, nil
	}
	return "", errf.Errorf("%w: %q is not under the table location %q", ErrOutsideTable, p, location)
}

// uriPath is the path part of a URI (after scheme://authority, or after file:), or p itself.
func uriPath(p string) string {
	if i := strings.Index(p, "://"); i > 0 && !strings.Contains(p[:i], "/") {
		rest := p[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "file:"); ok {
		return "/" + strings.TrimLeft(rest, "/")
	}
	return p
}

// Locate is where a path the metadata names is read: below the table location, the path
// relative to the table folder (Relative; abs false); outside it, an absolute URI the host
// can fetch (http:, https:, file:) or a bare absolute path, kept as written (abs true). The
// host reads an outside path only when the open's scope covers it (Options.AllowPrefixes)
// and refuses it before any request otherwise: the metadata is written by whoever wrote the
// table. Any other path outside the location (s3://, a relative path) is ErrOutsideTable.
func Locate(location, p string) (string, bool, error) {
	rel, err := Relative(location, p)
	if err == nil {
		return rel, false, nil
	}
	scheme, _, _ := strings.Cut(p, ":")
	switch strings.ToLower(scheme) {
	case "http", "https", "file":
		return p, true, nil
	}
	if strings.HasPrefix(p, "/") {
		return p, true, nil
	}
	return "", false, err
}
