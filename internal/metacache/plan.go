package metacache

import (
	"encoding/binary"
	"errors"

	"github.com/pqscan/pqscan/internal/httprange"
)

// Plan is what a complete scan of one version of a file requested past its stored tail: a
// returning scan with the same options fetches these ranges at once, before its engine asks
// for them (internal/prefetch), so that its dependent rounds cost one round trip. The JS host
// writes the same bytes (jsbridge/src/metacache.js encodePlan), so both may share a folder.
type Plan struct {
	Size         int64
	ETag         string
	LastModified string
	Ranges       []httprange.Range
}

// Limits on a stored plan: what a returning scan fetches before its engine has asked, and
// holds until the engine takes it (jsbridge/src/tailcache.js has the same).
const (
	PlanMaxRanges = 512
	PlanMaxBytes  = 16 << 20
)

var errPlan = errors.New("metacache: malformed plan entry")

// MarshalPlan encodes p (the payload of an entry): size (zigzag varint), ETag and
// Last-Modified (uvarint length and bytes), the count of ranges (uvarint), then per range
// its offset (zigzag varint) and length (uvarint).
func MarshalPlan(p *Plan) []byte {
	b := binary.AppendVarint(nil, p.Size)
	b = appendString(b, p.ETag)
	b = appendString(b, p.LastModified)
	b = binary.AppendUvarint(b, uint64(len(p.Ranges)))
	for _, r := range p.Ranges {
		b = binary.AppendVarint(b, r.Off)
		b = binary.AppendUvarint(b, uint64(r.Len))
	}
	return b
}

// UnmarshalPlan decodes a payload of MarshalPlan. Every range is non-empty and inside the
// file; a count larger than the payload or bytes after the last range are malformed.
func UnmarshalPlan(b []byte) (*Plan, error) {
	d := dec{b: b}
	p := &Plan{Size: d.varint()}
	p.ETag, p.LastModified = string(d.bytes()), string(d.bytes())
	n := d.uvarint()
	if d.bad || p.Size <= 0 || n > uint64(len(d.b)) {
		return nil, errPlan
	}
	p.Ranges = make([]httprange.Range, 0, n)
	for range n {
		off, n := d.varint(), d.uvarint()
		if d.bad || off < 0 || n == 0 || n > uint64(p.Size) || off > p.Size-int64(n) {
			return nil, errPlan
		}
		p.Ranges = append(p.Ranges, httprange.Range{Off: off, Len: int64(n)})
	}
	if len(d.b) != 0 {
		return nil, errPlan
	}
	return p, nil
}
