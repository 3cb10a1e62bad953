package geo

import (
	"math"

	"github.com/pqscan/pqscan/internal/errf"
)

// Rect is a closed axis-aligned envelope. XMin > XMax means it wraps across the antimeridian
// (the Parquet geospatial statistics' convention): it covers x >= XMin and x <= XMax.
type Rect struct{ XMin, YMin, XMax, YMax float64 }

// Wraps reports whether r crosses the antimeridian.
func (r Rect) Wraps() bool { return r.XMin > r.XMax }

// Valid reports whether r is a usable envelope: no NaN, YMin <= YMax.
func (r Rect) Valid() bool {
	return !math.IsNaN(r.XMin) && !math.IsNaN(r.XMax) && !math.IsNaN(r.YMin) && !math.IsNaN(r.YMax) &&
		r.YMin <= r.YMax
}

// xSpans returns r's x extent as one or two closed intervals.
func (r Rect) xSpans() [][2]float64 {
	if r.Wraps() {
		return [][2]float64{{r.XMin, math.Inf(1)}, {math.Inf(-1), r.XMax}}
	}
	return [][2]float64{{r.XMin, r.XMax}}
}

// Meets reports whether the closed envelopes r and o share a point (either may wrap).
func (r Rect) Meets(o Rect) bool {
	if r.YMin > o.YMax || o.YMin > r.YMax {
		return false
	}
	for _, a := range r.xSpans() {
		for _, b := range o.xSpans() {
			if a[0] <= b[1] && b[0] <= a[1] {
				return true
			}
		}
	}
	return false
}

// Rel is a spatial relation between a geometry and an envelope.
type Rel uint8

const (
	// Intersects: the geometry and the envelope share a point (ST_Intersects).
	Intersects Rel = iota + 1
	// BBox: the geometry's bounding box meets the envelope (the && operator).
	BBox
	// Within: the geometry lies in the envelope and its interior meets the envelope's
	// (ST_Within(geometry, envelope), ST_Contains(envelope, geometry)).
	Within
)

// Relate reports whether shape s stands in relation rel to envelope env (a valid Rect). An
// empty geometry relates to nothing. Within of a GEOMETRYCOLLECTION is refused (an error
// wrapping ErrUnsupported): its interior mixes dimensions.
func Relate(s *Shape, env Rect, rel Rel) (bool, error) {
	gb, ok := s.Bounds()
	if !ok || !gb.Meets(env) {
		return false, nil
	}
	switch rel {
	case BBox:
		return true, nil
	case Within:
		if s.Collection {
			return false, errf.Errorf("%w: ST_Within of a GEOMETRYCOLLECTION", ErrUnsupported)
		}
		for _, b := range boxes(env, gb) {
			if s.within(b) {
				return true, nil
			}
		}
		return false, nil
	}
	for _, b := range boxes(env, gb) {
		if s.intersects(b) {
			return true, nil
		}
	}
	return false, nil
}

// boxes splits env into finite boxes equivalent to it for a geometry within gb: a wrapping
// envelope's two halves end just beyond the geometry's own x extent (beyond, so that no
// point of the geometry is on an edge the envelope does not have).
func boxes(env Rect, gb Rect) []Rect {
	if !env.Wraps() {
		return []Rect{env}
	}
	beyond := func(x, dir float64) float64 {
		if y := math.Nextafter(x, dir); !math.IsInf(y, 0) {
			return y
		}
		return x // orient needs finite inputs
	}
	east := Rect{XMin: env.XMin, YMin: env.YMin, XMax: beyond(max(env.XMin, gb.XMax), math.Inf(1)), YMax: env.YMax}
	west := Rect{XMin: beyond(min(env.XMax, gb.XMin), math.Inf(-1)), YMin: env.YMin, XMax: env.XMax, YMax: env.YMax}
	return []Rect{east, west}
}

func (r Rect) has(x, y float64) bool { return x >= r.XMin && x <= r.XMax && y >= r.YMin && y <= r.YMax }
func (r Rect) inside(x, y float64) bool {
	return x > r.XMin && x < r.XMax && y > r.YMin && y < r.YMax
}

func (s *Shape) intersects(r Rect) bool {
	for _, p := range s.Parts {
		for k := p.R0; k < p.R1; k++ {
			if ringMeets(s.ring(k), r) {
				return true
			}
		}
		if p.Kind == Polygon && p.R1 > p.R0 && s.polygonHas(p, r.XMin, r.YMin) {
			// The boundary misses r, so r is wholly inside or outside the polygon.
			return true
		}
	}
	return false
}

// ringMeets reports whether a point, a polyline or a ring (closed by its writer) meets r.
func ringMeets(xy []float64, r Rect) bool {
	for i := 0; i < len(xy); i += 2 {
		if r.has(xy[i], xy[i+1]) {
			return true
		}
	}
	for i := 2; i < len(xy); i += 2 {
		if segmentMeets(xy[i-2], xy[i-1], xy[i], xy[i+1], r) {
			return true
		}
	}
	return false
}

// segmentMeets reports whether the segment a-b meets the closed box r, by the separating axis
// test: the axes of the box (the bounding boxes meet) and the segment's normal (the box's
// corners are not all strictly on one side of its line), with exact orientation signs.
func segmentMeets(ax, ay, bx, by float64, r Rect) bool {
	if max(ax, bx) < r.XMin || min(ax, bx) > r.XMax || max(ay, by) < r.YMin || min(ay, by) > r.YMax {
		return false
	}
	pos, neg := false, false
	for _, c := range [4][2]float64{{r.XMin, r.YMin}, {r.XMax, r.YMin}, {r.XMax, r.YMax}, {r.XMin, r.YMax}} {
		switch orient(ax, ay, bx, by, c[0], c[1]) {
		case 0:
			return true
		case 1:
			pos = true
		default:
			neg = true
		}
		if pos && neg {
			return true
		}
	}
	return false
}

// polygonHas reports whether (x, y), a point on no ring, lies inside polygon p (even-odd
// rule over its shell and holes).
func (s *Shape) polygonHas(p Part, x, y float64) bool {
	in := false
	for k := p.R0; k < p.R1; k++ {
		xy := s.ring(k)
		for i := 2; i < len(xy); i += 2 {
			ax, ay, bx, by := xy[i-2], xy[i-1], xy[i], xy[i+1]
			if (ay > y) == (by > y) {
				continue
			}
			// The edge crosses the horizontal line through the point: count it when the
			// crossing is to the point's right, i.e. the point is on the left of the edge
			// taken upwards.
			o := orient(ax, ay, bx, by, x, y)
			if by < ay {
				o = -o
			}
			if o > 0 {
				in = !in
			}
		}
	}
	return in
}

func (s *Shape) within(r Rect) bool {
	for i := 0; i < len(s.XY); i += 2 {
		if !r.has(s.XY[i], s.XY[i+1]) {
			return false
		}
	}
	// Every point is in the closed box (it is convex); the interiors meet unless the
	// geometry lies on the box's boundary.
	for _, p := range s.Parts {
		if p.Kind == Polygon && p.R1 > p.R0 && area(s.ring(p.R0)) != 0 {
			return true
		}
		for k := p.R0; k < p.R1; k++ {
			xy := s.ring(k)
			for i := 0; i < len(xy); i += 2 {
				if r.inside(xy[i], xy[i+1]) {
					return true
				}
				if i >= 2 && !sameEdge(xy[i-2], xy[i-1], xy[i], xy[i+1], r) {
					return true // a chord between two boundary points crosses the interior
				}
			}
		}
	}
	return false
}

// sameEdge reports whether two points of the box's boundary lie on one of its edge lines.
func sameEdge(ax, ay, bx, by float64, r Rect) bool {
	return ax == bx && (ax == r.XMin || ax == r.XMax) || ay == by && (ay == r.YMin || ay == r.YMax)
}

// area is twice the signed area of a ring (shoelace).
func area(xy []float64) float64 {
	a := 0.0
	for i := 2; i < len(xy); i += 2 {
		a += xy[i-2]*xy[i+1] - xy[i]*xy[i-1]
	}
	return a
}

// orient is the sign of the orientation of c relative to the directed line a→b: 1 left,
// -1 right, 0 on it. Exact: the floating-point determinant decides when it is beyond its
// error bound (Shewchuk's orient2d filter); otherwise the determinant's six products are
// split into exact pairs and summed exactly as an expansion, whose largest component
// has the sum's sign. Exact for coordinates within InRange (no product overflows, no
// product's low part underflows).
func orient(ax, ay, bx, by, cx, cy float64) int {
	l := (ax - cx) * (by - cy)
	r := (ay - cy) * (bx - cx)
	det := l - r
	const errBound = 3.3306690738754716e-16 // (3 + 16ε)ε
	if math.Abs(det) > errBound*(math.Abs(l)+math.Abs(r)) && !math.IsInf(det, 0) {
		if det > 0 {
			return 1
		}
		return -1
	}
	var h [12]float64
	n := 0
	add := func(a, b float64) {
		p, e := twoProduct(a, b)
		for _, q := range [2]float64{e, p} {
			for i := 0; i < n; i++ {
				q, h[i] = twoSum(q, h[i])
			}
			h[n] = q
			n++
		}
	}
	add(ax, by)
	add(-ax, cy)
	add(-cx, by)
	add(-ay, bx)
	add(ay, cx)
	add(cy, bx)
	for i := n - 1; i >= 0; i-- {
		switch {
		case h[i] > 0:
			return 1
		case h[i] < 0:
			return -1
		}
	}
	return 0
}

// twoProduct returns a*b rounded and its exact error (Dekker, with Veltkamp's split; math.FMA
// is a software routine in wasm).
func twoProduct(a, b float64) (p, e float64) {
	p = a * b
	ah, al := split(a)
	bh, bl := split(b)
	return p, al*bl - (((p - ah*bh) - al*bh) - ah*bl)
}

func split(a float64) (hi, lo float64) {
	c := 134217729 * a // 2^27 + 1
	hi = c - (c - a)
	return hi, a - hi
}

// twoSum returns a+b rounded and its exact error (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// InRange reports whether a coordinate or envelope bound is one the relations are exact for:
// zero, or a magnitude within [1e-140, 1e150] (products and their splits neither overflow
// nor lose low bits to underflow).
func InRange(v float64) bool {
	a := math.Abs(v)
	return a == 0 || a >= 1e-140 && a <= 1e150
}

// Down32 is the largest float32 <= f and Up32 the smallest float32 >= f: bounds rounded
// outward to float32, as bbox covering columns hold them.
func Down32(f float64) float32 {
	g := float32(f)
	if float64(g) > f {
		g = math.Nextafter32(g, float32(math.Inf(-1)))
	}
	return g
}

func Up32(f float64) float32 {
	g := float32(f)
	if float64(g) < f {
		g = math.Nextafter32(g, float32(math.Inf(1)))
	}
	return g
}

// Hilbert is the position of (lon, lat) along a Hilbert curve over a 2^16 × 2^16 grid of the
// world (coordinates outside it are clamped to its edge): the order that makes near
// geometries share row groups and pages.
func Hilbert(lon, lat float64) uint64 {
	const n = 1 << 16
	cell := func(v, lo, hi float64) uint32 {
		return uint32(min(n-1, max(0, (v-lo)/(hi-lo)*n)))
	}
	x, y := cell(lon, -180, 180), cell(lat, -90, 90)
	var d uint64
	for s := uint32(n / 2); s > 0; s /= 2 {
		var rx, ry uint32
		if x&s != 0 {
			rx = 1
		}
		if y&s != 0 {
			ry = 1
		}
		d += uint64(s) * uint64(s) * uint64((3*rx)^ry)
		if ry == 0 {
			if rx == 1 {
				x, y = n-1-x, n-1-y
			}
			x, y = y, x
		}
	}
	return d
}
