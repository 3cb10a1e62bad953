package iceberg

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// Partition transforms (spec § Partition Transforms, Appendix B "32-bit Hash Requirements")
// for pruning: a partition value, or a manifest's range of them, becomes bounds on the source
// column (day(ts) = d: ts within day d), which the predicate is then evaluated on with prune's
// statistics rules. Bounds on the source are the inclusive projection read backwards: for
// the monotone transforms (identity, truncate, year, month, day, hour) "some source value in
// [start(lo), end(hi)] satisfies p" is what the projected predicate on [lo, hi] asks. bucket
// is not monotone: only = and IN on its source are decided, by hashing their literals.

// Transform is a parsed transform string.
type Transform struct {
	Name string // identity, bucket, truncate, year, month, day, hour, void; else unknown
	N    int64  // bucket's N, truncate's W
}

// ParseTransform reads "identity", "bucket[16]", "truncate[4]", "day"… An unknown or
// malformed transform parses with its name and prunes nothing.
func ParseTransform(s string) Transform {
	name, arg, ok := strings.Cut(s, "[")
	if !ok {
		return Transform{Name: s}
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(arg, "]"), 10, 64)
	if err != nil || n <= 0 || !strings.HasSuffix(arg, "]") {
		return Transform{Name: "malformed " + s}
	}
	return Transform{Name: name, N: n}
}

// murmur3 is Murmur3 x86 32-bit with seed 0, the hash bucket[N] takes.
func murmur3(b []byte) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(b)
	for ; len(b) >= 4; b = b[4:] {
		k := binary.LittleEndian.Uint32(b) * c1
		h ^= bits.RotateLeft32(k, 15) * c2
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	var k uint32
	switch len(b) {
	case 3:
		k ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(b[0])
		h ^= bits.RotateLeft32(k*c1, 15) * c2
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// BucketHash is the 32-bit hash of v, a value of primitive type p (Appendix B): int, long,
// date, time and timestamps hash as a long (timestamp_ns as its microseconds), decimals as
// their unscaled value's minimal big-endian two's complement, strings and binary as bytes.
// ok is false for a type bucket does not take (boolean, float, double).
func BucketHash(p string, v prune.Value) (int32, bool) {
	var buf [8]byte
	switch v.Kind {
	case prune.Int, prune.Date, prune.Time, prune.Timestamp:
		x := v.I
		if strings.HasSuffix(p, "_ns") {
			x = floorDiv(x, 1000)
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		return murmur3(buf[:]), true
	case prune.Bytes:
		return murmur3(v.B), true
	case prune.Decimal:
		u := exactnum.NewInt(v.I)
		if v.B != nil {
			u = exactnum.FromTwos(v.B)
		}
		return murmur3(u.Twos()), true // Java's BigInteger.toByteArray: the fewest bytes
	}
	return 0, false
}

// Bucket is bucket[n] of v (ok false: not bucketable).
func Bucket(n int64, p string, v prune.Value) (int64, bool) {
	h, ok := BucketHash(p, v)
	return int64(h&0x7fffffff) % n, ok
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// SourceBounds are the bounds of the source column (primitive type p) values whose
// transform falls in [lo, hi] (nil: unbounded on that side): the min and max a file or
// manifest's partition values imply. An end the transform cannot bound is left unset, so
// that an unknown transform, bucket and void bound nothing.
func SourceBounds(tr Transform, p string, lo, hi *prune.Value) (s prune.ColStats) {
	s.NullCount, s.NumValues, s.NaNCount = -1, -1, -1
	t, ok := PruneType(p)
	if !ok {
		return s
	}
	if lo != nil {
		s.Min, s.HasMin = sourceEnd(tr, t, *lo, false)
	}
	if hi != nil {
		s.Max, s.HasMax = sourceEnd(tr, t, *hi, true)
	}
	if tr.Name == "identity" {
		s.MinExact, s.MaxExact = s.HasMin, s.HasMax
	}
	return s
}

// sourceEnd is the least (upper false) or greatest (upper true) source value of type t whose
// transform is v.
func sourceEnd(tr Transform, t prune.ColumnType, v prune.Value, upper bool) (prune.Value, bool) {
	switch tr.Name {
	case "identity":
		return v, v.Kind == t.Kind
	case "truncate":
		switch {
		case t.Kind == prune.Int && v.Kind == prune.Int && !upper:
			return v, true
		case t.Kind == prune.Int && v.Kind == prune.Int && v.I <= 1<<62 && tr.N <= 1<<31:
			return prune.IntValue(v.I + tr.N - 1), true
		case t.Kind == prune.Bytes && v.Kind == prune.Bytes && !upper:
			return v, true
		case t.Kind == prune.Bytes && v.Kind == prune.Bytes:
			// Every value with prefix v sorts below v with its last byte below 0xFF raised.
			b := append([]byte{}, v.B...)
			for len(b) > 0 && b[len(b)-1] == 0xFF {
				b = b[:len(b)-1]
			}
			if len(b) == 0 {
				return prune.Value{}, false
			}
			b[len(b)-1]++
			return prune.BytesValue(b), true
		}
	case "year", "month", "day", "hour":
		if v.Kind != prune.Int && v.Kind != prune.Date || v.I < -1e6 || v.I > 1e6 {
			return prune.Value{}, false // beyond any timestamp's range: unknown
		}
		n := int(v.I)
		if upper {
			n++ // the start of the next period, less one unit below
		}
		epoch := time.Unix(0, 0).UTC()
		var sec int64
		switch tr.Name {
		case "year":
			sec = epoch.AddDate(n, 0, 0).Unix()
		case "month":
			sec = epoch.AddDate(0, n, 0).Unix()
		case "day":
			sec = int64(n) * 86400
		default:
			sec = int64(n) * 3600
		}
		switch {
		case t.Kind == prune.Date && tr.Name != "hour":
			d := floorDiv(sec, 86400)
			if upper {
				d--
			}
			return prune.DateValue(int32(d)), true
		case t.Kind == prune.Timestamp:
			per := int64(1e6)
			if t.Unit == prune.Nano {
				per = 1e9
			}
			if sec > math.MaxInt64/per || sec < math.MinInt64/per {
				return prune.Value{}, false
			}
			x := sec * per
			if upper {
				x--
			}
			return prune.TimestampValue(x), true
		}
	}
	return prune.Value{}, false
}
