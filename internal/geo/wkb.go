// Package geo reads what a spatial predicate needs from a Parquet file: WKB geometries (ISO
// and EWKB, XY/Z/M/ZM; Z and M are read past and ignored, since the predicates are planar in
// x and y), their relation to an axis-aligned envelope, and the GeoParquet `geo` metadata
// (the primary column, its encoding, edges and bbox covering columns).
//
// The package is pure (no I/O, standard library only) and builds for GOOS=wasip1. Every
// length read from a geometry is checked against the bytes left before anything is
// allocated; malformed input is an error wrapping ErrWKB, never a panic.
package geo

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// ErrWKB is wrapped by every error about malformed WKB.
var ErrWKB = errors.New("geo: malformed WKB")

// ErrUnsupported is wrapped by errors about a geometry a relation is not evaluated on.
var ErrUnsupported = errors.New("geo: unsupported")

// Kind is the kind of a primitive part of a geometry.
type Kind uint8

const (
	Point Kind = iota + 1
	Line
	Polygon
)

// Part is a primitive part: a point (one ring of one coordinate, or none when empty), a
// linestring (one ring), or a polygon (its shell then its holes). Rings index Shape.Rings.
type Part struct {
	Kind   Kind
	R0, R1 int
}

// Shape is a parsed geometry flattened into its primitive parts, x and y only. A Shape is
// reused by Parse to avoid allocating per row.
type Shape struct {
	XY    []float64 // x0, y0, x1, y1, ...
	Rings []int     // ring k holds the coordinates XY[2*Rings[k] : 2*Rings[k+1]]
	Parts []Part
	// Collection says the geometry is or holds a GEOMETRYCOLLECTION.
	Collection bool
	// Multi says the geometry is a MULTI* type or a collection (its parts are separate).
	Multi bool
}

// maxNest bounds collection nesting, so that hostile input cannot exhaust the stack.
const maxNest = 32

// Parse reads one WKB geometry (the whole of b) into s, replacing its contents.
func (s *Shape) Parse(b []byte) error {
	s.XY, s.Rings, s.Parts = s.XY[:0], s.Rings[:0], s.Parts[:0]
	s.Collection, s.Multi = false, false
	r := wkbReader{b: b}
	if err := r.geometry(s, 0, 0); err != nil {
		return err
	}
	if r.off != len(b) {
		return r.fail("bytes after the geometry", uint64(len(b)-r.off))
	}
	return nil
}

type wkbReader struct {
	b   []byte
	off int
	le  bool
}

// fail is an ErrWKB at the current byte: msg, then n when given.
func (r *wkbReader) fail(msg string, n ...uint64) error {
	if len(n) > 0 {
		msg += " " + strconv.FormatUint(n[0], 10)
	}
	return wkbError{r.off, msg}
}

type wkbError struct {
	off int
	msg string
}

func (e wkbError) Error() string {
	return ErrWKB.Error() + " at byte " + strconv.Itoa(e.off) + ": " + e.msg
}

func (e wkbError) Unwrap() error { return ErrWKB }

func (r *wkbReader) u32() (uint32, error) {
	if len(r.b)-r.off < 4 {
		return 0, r.fail("truncated")
	}
	p := r.b[r.off : r.off+4]
	r.off += 4
	if r.le {
		return binary.LittleEndian.Uint32(p), nil
	}
	return binary.BigEndian.Uint32(p), nil
}

func (r *wkbReader) f64(p []byte) float64 {
	if r.le {
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(p))
}

// header reads the byte order and the type, and returns the base type (1..7) and the number
// of ordinates per coordinate. ISO types add 1000 (Z), 2000 (M) or 3000 (ZM); EWKB sets the
// high bits 0x80000000 (Z), 0x40000000 (M) and 0x20000000 (an SRID follows, read past).
func (r *wkbReader) header() (base uint32, dims int, err error) {
	if r.off >= len(r.b) {
		return 0, 0, r.fail("truncated")
	}
	switch r.b[r.off] {
	case 0:
		r.le = false
	case 1:
		r.le = true
	default:
		return 0, 0, r.fail("byte order", uint64(r.b[r.off]))
	}
	r.off++
	t, err := r.u32()
	if err != nil {
		return 0, 0, err
	}
	dims = 2
	if t&0xE0000000 != 0 { // EWKB
		if t&0x80000000 != 0 {
			dims++
		}
		if t&0x40000000 != 0 {
			dims++
		}
		if t&0x20000000 != 0 {
			if _, err := r.u32(); err != nil {
				return 0, 0, err
			}
		}
		t &= 0x0FFFFFFF
	}
	switch t / 1000 {
	case 1, 2:
		dims++
	case 3:
		dims += 2
	case 0:
	default:
		return 0, 0, r.fail("geometry type", uint64(t))
	}
	if dims > 4 {
		return 0, 0, r.fail("both EWKB and ISO dimension flags")
	}
	base = t % 1000
	if base < 1 || base > 7 {
		return 0, 0, r.fail("geometry type", uint64(t))
	}
	return base, dims, nil
}

// count reads a count of items of at least minSize bytes each and checks that they fit.
func (r *wkbReader) count(minSize int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(len(r.b)-r.off) {
		return 0, r.fail("count exceeding the bytes left:", uint64(n))
	}
	return int(n), nil
}

// coords appends n coordinates of dims ordinates to s.XY, keeping x and y. A coordinate
// with a NaN x or y (an empty point's convention; in a line or ring invalid and undefined by
// the specs) is left out, so that it neither matches nor poisons a bound.
func (r *wkbReader) coords(s *Shape, n, dims int) error {
	w := 8 * dims
	for i := 0; i < n; i++ {
		p := r.b[r.off : r.off+w]
		x, y := r.f64(p[:8]), r.f64(p[8:16])
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
		case !InRange(x) || !InRange(y):
			return r.fail("coordinate outside the magnitudes 1e-140..1e150")
		default:
			s.XY = append(s.XY, x, y)
		}
		r.off += w
	}
	return nil
}

// geometry reads one geometry; want, when not 0, is the base type a MULTI* requires of it.
func (r *wkbReader) geometry(s *Shape, want uint32, depth int) error {
	if depth > maxNest {
		return r.fail("geometry collections nested too deeply")
	}
	base, dims, err := r.header()
	if err != nil {
		return err
	}
	if want != 0 && base != want {
		return r.fail("a multi type holding type", uint64(base))
	}
	w := 8 * dims
	switch base {
	case 1: // point; POINT EMPTY is written with NaN ordinates
		if len(r.b)-r.off < w {
			return r.fail("truncated point")
		}
		r0 := len(s.Rings)
		s.Rings = append(s.Rings, len(s.XY)/2)
		if err := r.coords(s, 1, dims); err != nil {
			return err
		}
		s.Parts = append(s.Parts, Part{Kind: Point, R0: r0, R1: r0 + 1})
	case 2:
		n, err := r.count(w)
		if err != nil {
			return err
		}
		r0 := len(s.Rings)
		s.Rings = append(s.Rings, len(s.XY)/2)
		if err := r.coords(s, n, dims); err != nil {
			return err
		}
		s.Parts = append(s.Parts, Part{Kind: Line, R0: r0, R1: r0 + 1})
	case 3:
		nr, err := r.count(4)
		if err != nil {
			return err
		}
		r0 := len(s.Rings)
		for i := 0; i < nr; i++ {
			n, err := r.count(w)
			if err != nil {
				return err
			}
			s.Rings = append(s.Rings, len(s.XY)/2)
			if err := r.coords(s, n, dims); err != nil {
				return err
			}
		}
		s.Parts = append(s.Parts, Part{Kind: Polygon, R0: r0, R1: r0 + nr})
	default: // 4..6 MULTI*, 7 GEOMETRYCOLLECTION
		s.Multi = true
		sub := base - 3
		if base == 7 {
			s.Collection, sub = true, 0
		}
		n, err := r.count(9)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := r.geometry(s, sub, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// ring returns the coordinates of ring k as x, y pairs.
func (s *Shape) ring(k int) []float64 {
	end := len(s.XY) / 2
	if k+1 < len(s.Rings) {
		end = s.Rings[k+1]
	}
	return s.XY[2*s.Rings[k] : 2*end]
}

// Empty reports whether the geometry has no coordinates.
func (s *Shape) Empty() bool { return len(s.XY) == 0 }

// Bounds returns the geometry's bounding box (ok false when it is empty).
func (s *Shape) Bounds() (b Rect, ok bool) {
	if s.Empty() {
		return b, false
	}
	b = Rect{XMin: math.Inf(1), YMin: math.Inf(1), XMax: math.Inf(-1), YMax: math.Inf(-1)}
	for i := 0; i < len(s.XY); i += 2 {
		x, y := s.XY[i], s.XY[i+1]
		b.XMin, b.XMax = min(b.XMin, x), max(b.XMax, x)
		b.YMin, b.YMax = min(b.YMin, y), max(b.YMax, y)
	}
	return b, true
}
