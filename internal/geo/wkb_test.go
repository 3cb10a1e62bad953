package geo

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/jsonv"
)

// w builds little-endian WKB: w(typ, parts...) with uint32 counts and float64 ordinates.
type wb []byte

func (b wb) hdr(t uint32) wb { return binary.LittleEndian.AppendUint32(append(b, 1), t) }
func (b wb) n(k uint32) wb   { return binary.LittleEndian.AppendUint32(b, k) }
func (b wb) f(fs ...float64) wb {
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

func pt(x, y float64) wb { return wb{}.hdr(1).f(x, y) }
func line(xy ...float64) wb {
	return wb{}.hdr(2).n(uint32(len(xy) / 2)).f(xy...)
}
func poly(rings ...[]float64) wb {
	b := wb{}.hdr(3).n(uint32(len(rings)))
	for _, r := range rings {
		b = b.n(uint32(len(r) / 2)).f(r...)
	}
	return b
}
func multi(t uint32, parts ...wb) wb {
	b := wb{}.hdr(t).n(uint32(len(parts)))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

var square = []float64{0, 0, 10, 0, 10, 10, 0, 10, 0, 0}
var hole = []float64{2, 2, 8, 2, 8, 8, 2, 8, 2, 2}

func Test_Relate(t *testing.T) {
	env := Rect{XMin: 4, YMin: 4, XMax: 6, YMax: 6} // inside the hole
	edge := Rect{XMin: 10, YMin: 5, XMax: 12, YMax: 6}
	tests := []struct {
		name            string
		g               wb
		env             Rect
		inter, bb, with bool
	}{
		{"point in", pt(5, 5), env, true, true, true},
		{"point on edge", pt(4, 5), env, true, true, false},
		{"point out", pt(3, 5), env, false, false, false},
		{"point empty", pt(math.NaN(), math.NaN()), env, false, false, false},
		{"line crossing", line(0, 0, 10, 10), env, true, true, false},
		{"line passing corner", line(3, 7, 7, 3.5), env, true, true, false},
		{"line missing corner", line(3, 5.5, 4.5, 7), env, false, true, false},
		{"line inside", line(4.5, 4.5, 5, 5), env, true, true, true},
		{"line along edge", line(4, 4, 4, 6), env, true, true, false},
		{"polygon holding env", poly(square), env, true, true, false},
		{"polygon whose hole holds env", poly(square, hole), env, false, true, false},
		{"polygon touching at edge", poly(square), edge, true, true, false},
		{"polygon within", poly([]float64{4, 4, 6, 4, 6, 6, 4, 4}), env, true, true, true},
		{"multipoint", multi(4, pt(0, 0), pt(5, 5)), env, true, true, false},
		{"multipolygon", multi(6, poly(square, hole), poly([]float64{4.5, 4.5, 5, 4.5, 5, 5, 4.5, 4.5})), env, true, true, false},
		{"collection", multi(7, pt(100, 100), line(5, 0, 5, 3)), env, false, true, false},
		{"wrap east", pt(179, 0), Rect{XMin: 170, YMin: -1, XMax: -170, YMax: 1}, true, true, true},
		{"wrap west", line(-175, -5, -175, 5), Rect{XMin: 170, YMin: -1, XMax: -170, YMax: 1}, true, true, false},
		{"wrap miss", pt(0, 0), Rect{XMin: 170, YMin: -1, XMax: -170, YMax: 1}, false, false, false},
	}
	var s Shape
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Parse(tc.g); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				rel  Rel
				want bool
			}{{Intersects, tc.inter}, {BBox, tc.bb}, {Within, tc.with}} {
				got, err := Relate(&s, tc.env, c.rel)
				if errors.Is(err, ErrUnsupported) && s.Collection && c.rel == Within {
					continue
				}
				if err != nil || got != c.want {
					t.Errorf("rel %d: got %v, %v; want %v", c.rel, got, err, c.want)
				}
			}
		})
	}
}

func Test_ParseVariants(t *testing.T) {
	iso := wb{}.hdr(1001).f(1, 2, 3) // POINT Z
	isoZM := wb{}.hdr(3002).n(1).f(1, 2, 3, 4)
	ewkb := wb{}.hdr(0xA0000001).n(4326).f(1, 2, 3) // EWKB POINT Z with SRID
	be := append(wb{0}, 0, 0, 0, 1)
	be = binary.BigEndian.AppendUint64(be, math.Float64bits(1))
	be = binary.BigEndian.AppendUint64(be, math.Float64bits(2))
	var s Shape
	for _, b := range []wb{iso, isoZM, ewkb, be} {
		if err := s.Parse(b); err != nil || len(s.XY) != 2 || s.XY[0] != 1 || s.XY[1] != 2 {
			t.Errorf("%x: %v %v", []byte(b), s.XY, err)
		}
	}
}

func Test_ParseMalformed(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"byte order", []byte{2, 1, 0, 0, 0}},
		{"truncated type", []byte{1, 1, 0}},
		{"type 0", wb{}.hdr(0)},
		{"type 8", wb{}.hdr(8)},
		{"type 4001", wb{}.hdr(4001)},
		{"iso and ewkb", wb{}.hdr(0x80000000|3001).f(1, 2, 3, 4, 5)},
		{"truncated point", wb{}.hdr(1).f(1)},
		{"huge count", wb{}.hdr(2).n(0xFFFFFFFF)},
		{"trailing", append(pt(1, 2), 0)},
		{"multi of wrong type", multi(4, line(0, 0, 1, 1))},
		{"infinite", pt(math.Inf(1), 0)},
		{"deep", func() []byte {
			b := pt(0, 0)
			for i := 0; i < 40; i++ {
				b = multi(7, b)
			}
			return b
		}()},
	}
	var s Shape
	for _, tc := range tests {
		if err := s.Parse(tc.b); !errors.Is(err, ErrWKB) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func FuzzWKB(f *testing.F) {
	for _, b := range []wb{pt(1, 2), line(0, 0, 1, 1), poly(square, hole), multi(6, poly(square)), multi(7, pt(0, 0), line(1, 1, 2, 2))} {
		f.Add([]byte(b), 0.0, 0.0, 5.0, 5.0)
	}
	f.Fuzz(func(t *testing.T, b []byte, x0, y0, x1, y1 float64) {
		var s Shape
		if err := s.Parse(b); err != nil {
			if !errors.Is(err, ErrWKB) {
				t.Fatalf("error %v does not wrap ErrWKB", err)
			}
			return
		}
		env := Rect{XMin: x0, YMin: y0, XMax: x1, YMax: y1}
		if !env.Valid() || math.IsInf(x0, 0) || math.IsInf(x1, 0) || math.IsInf(y0, 0) || math.IsInf(y1, 0) {
			return
		}
		in, err1 := Relate(&s, env, Intersects)
		bb, err2 := Relate(&s, env, BBox)
		wi, err3 := Relate(&s, env, Within)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		// Within implies intersects implies the bounding boxes meet.
		if in && !bb || err3 == nil && wi && !in {
			t.Fatalf("inconsistent: intersects %v bbox %v within %v", in, bb, wi)
		}
	})
}

func FuzzMeta(f *testing.F) {
	f.Add([]byte(`{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","bbox":[0,0,1,1],"covering":{"bbox":{"xmin":["bbox","xmin"],"ymin":["bbox","ymin"],"xmax":["bbox","xmax"],"ymax":["bbox","ymax"]}}}}}`))
	f.Add([]byte(`{"version":"1.0.0","primary_column":"g","columns":{"g":{"encoding":"WKB","edges":"spherical","crs":null}}}`))
	f.Add([]byte(`{"primary_column":"g","x":1e999,"columns":{"g":{"bbox":[1,null,3,4],"crs":{"a":["\ud800\u0041"]}},"g":{"covering":{"bbox":{"xmin":["a"]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The two readers accept the same documents alike, but
		// for encoding/json's quirks the lite reader leaves out: member names matched without
		// regard to case, and a repeated member merged into the first.
		ml, errl := parseMetaLite(b)
		ms, errs := parseMetaStd(b)
		if v, perr := jsonv.Parse(b); perr == nil && v.Quirky(metaFields) {
			return
		}
		if (errl == nil) != (errs == nil) {
			t.Fatalf("reader disagree: lite %v, encoding/json %v", errl, errs)
		}
		if errl == nil && !reflect.DeepEqual(ml, ms) {
			t.Fatalf("readers disagree:\n%#v\n%#v", ml, ms)
		}
		m, err := ParseMeta(b)
		if err != nil {
			if !errors.Is(err, ErrMeta) {
				t.Fatalf("error %v does not wrap ErrMeta", err)
			}
			return
		}
		if _, ok := m.Columns[m.Primary]; !ok {
			t.Fatal("primary column missing")
		}
		for _, c := range m.Columns {
			if c.BBox != nil && !c.BBox.Valid() {
				t.Fatal("invalid bbox kept")
			}
		}
	})
}

func Test_ParseMeta(t *testing.T) {
	m, err := ParseMeta([]byte(`{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","crs":{"id":{"authority":"EPSG","code":4326}},"bbox":[-1,-2,0,3,4,0],"covering":{"bbox":{"xmin":["bbox","xmin"],"ymin":["bbox","ymin"],"xmax":["bbox","xmax"],"ymax":["bbox","ymax"]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Columns["geometry"]
	if m.Primary != "geometry" || c.Encoding != "WKB" || *c.BBox != (Rect{-1, -2, 3, 4}) || c.Covering.YMax[1] != "ymax" || string(c.CRS) == "" {
		t.Fatalf("%+v %+v", m, c)
	}
	for _, bad := range []string{
		`[]`, `{"primary_column":"g","columns":{}}`, `{"primary_column":"x","columns":{"g":{}}}`,
		`{"primary_column":"g","columns":{"g":{"edges":"curvy"}}}`,
		`{"primary_column":"g","columns":{"g":{"bbox":[1,2,3]}}}`,
		`{"primary_column":"g","columns":{"g":{"covering":{"bbox":{"xmin":["a"],"ymin":[],"xmax":["c"],"ymax":["d"]}}}}}`,
	} {
		if _, err := ParseMeta([]byte(bad)); !errors.Is(err, ErrMeta) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// metaFields are the `geo` metadata's member names, for jsonv's Quirky.
var metaFields = []string{"version", "primary_column", "columns", "encoding", "edges", "crs", "bbox", "covering", "xmin", "ymin", "xmax", "ymax"}
