package prune

// Spatial predicates: a geometry column (WKB) related to an axis-aligned envelope.

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// Spatial relates the WKB geometries of Col to the envelope Env:
//
//	ST_Intersects(col, ST_MakeEnvelope(xmin, ymin, xmax, ymax))   Rel "intersects"
//	col && ST_MakeEnvelope(…)                                     Rel "bbox" (bounding boxes meet)
//	ST_Within(col, ST_MakeEnvelope(…)), ST_Contains(ST_MakeEnvelope(…), col)   Rel "within"
//
// The envelope is closed; xmin > xmax wraps across the antimeridian (x >= xmin or x <= xmax).
// A null geometry gives NULL, an empty one FALSE. Rows are tested exactly (package geo);
// statistics prune through the column chunk's geospatial bounding box (ColStats.Geo), and a
// scan rewrites the predicate with the GeoParquet bbox covering columns (ExpandSpatial) so
// that their statistics and page index prune too.
type Spatial struct {
	Rel string
	Col string
	Env geo.Rect
	// Spherical marks a column whose edges are great circles (GEOGRAPHY, or GeoParquet
	// "edges": "spherical"): only points are tested exactly, other geometries are an error.
	// Set by the scan from the file; not part of the text or wire form.
	Spherical bool
}

func (*Spatial) isExpr() {}

var spatialRels = map[string]geo.Rel{"intersects": geo.Intersects, "bbox": geo.BBox, "within": geo.Within}

func (e *Spatial) String() string {
	env := "ST_MakeEnvelope(" + fmtF(e.Env.XMin) + ", " + fmtF(e.Env.YMin) + ", " + fmtF(e.Env.XMax) + ", " + fmtF(e.Env.YMax) + ")"
	switch e.Rel {
	case "bbox":
		return quotePath(e.Col) + " && " + env
	case "within":
		return "ST_Within(" + quotePath(e.Col) + ", " + env + ")"
	}
	return "ST_Intersects(" + quotePath(e.Col) + ", " + env + ")"
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (e *Spatial) MarshalJSON() ([]byte, error) {
	w := opObj("st_"+e.Rel, e.Col)
	w.key("envelope")
	sep := byte('[')
	for _, f := range [4]float64{e.Env.XMin, e.Env.YMin, e.Env.XMax, e.Env.YMax} {
		var ok bool
		if w.b, ok = jsonw.Float(append(w.b, sep), f); !ok {
			return nil, errf.Errorf("%w: envelope holds %s", ErrJSON, fmtF(f))
		}
		sep = ','
	}
	return append(w.b, "]}"...), nil
}

// spatialFuncs are the function names the parser takes (upper case) and their relation;
// "contains" takes the envelope first.
var spatialFuncs = map[string]string{"ST_INTERSECTS": "intersects", "ST_WITHIN": "within", "ST_CONTAINS": "contains"}

// spatialCall parses NAME '(' … ')' for a spatial function; the name is the current token.
func (p *parser) spatialCall() (Expr, error) {
	name := p.next()
	rel := spatialFuncs[strings.ToUpper(name.text)]
	if o := p.next(); !isOp(o, "(") {
		return nil, p.errAt(o, "expected ( after "+strings.ToUpper(name.text))
	}
	var col string
	var env geo.Rect
	var err error
	if rel == "contains" {
		if env, err = p.envelope(); err == nil {
			err = p.expectOp(",")
		}
		if err == nil {
			col, err = p.path()
		}
		rel = "within"
	} else {
		if col, err = p.path(); err == nil {
			err = p.expectOp(",")
		}
		if err == nil {
			env, err = p.envelope()
		}
	}
	if err == nil {
		err = p.expectOp(")")
	}
	if err != nil {
		return nil, err
	}
	return &Spatial{Rel: rel, Col: col, Env: env}, nil
}

func (p *parser) expectOp(op string) error {
	if t := p.next(); !isOp(t, op) {
		return p.errAt(t, "expected "+op)
	}
	return nil
}

// envelope parses ST_MakeEnvelope(xmin, ymin, xmax, ymax) with numeric literals.
func (p *parser) envelope() (geo.Rect, error) {
	t := p.next()
	if !isKw(t, "ST_MakeEnvelope") {
		return geo.Rect{}, p.errAt(t, "expected ST_MakeEnvelope")
	}
	if err := p.expectOp("("); err != nil {
		return geo.Rect{}, err
	}
	var v [4]float64
	for i := range v {
		if i > 0 {
			if err := p.expectOp(","); err != nil {
				return geo.Rect{}, err
			}
		}
		at := p.peek()
		l, err := p.literal()
		if err != nil {
			return geo.Rect{}, err
		}
		f, err := strconv.ParseFloat(l.Text, 64)
		if (l.Kind != LitInt && l.Kind != LitFloat) || err != nil || !geo.InRange(f) {
			return geo.Rect{}, p.errAt(at, "expected a number in ST_MakeEnvelope (0 or a magnitude in 1e-140..1e150)")
		}
		v[i] = f
	}
	r := geo.Rect{XMin: v[0], YMin: v[1], XMax: v[2], YMax: v[3]}
	if r.YMin > r.YMax {
		return r, p.errAt(t, "ST_MakeEnvelope with ymin > ymax")
	}
	return r, p.expectOp(")")
}

// parseSpatialJSON decodes {"op":"st_intersects"|"st_bbox"|"st_within","col":…,"envelope":[4 numbers]}.
func parseSpatialJSON(op, col string, env []float64, where string) (Expr, error) {
	rel := strings.TrimPrefix(op, "st_")
	if _, ok := spatialRels[rel]; !ok {
		return nil, jsonErr(where, errf.Sprintf("unknown op %q", op))
	}
	if len(env) != 4 {
		return nil, jsonErr(where, op+" needs \"envelope\": [xmin, ymin, xmax, ymax]")
	}
	r := geo.Rect{XMin: env[0], YMin: env[1], XMax: env[2], YMax: env[3]}
	for _, f := range env {
		if !geo.InRange(f) {
			return nil, jsonErr(where, "envelope needs numbers 0 or of a magnitude in 1e-140..1e150")
		}
	}
	if r.YMin > r.YMax {
		return nil, jsonErr(where, "envelope with ymin > ymax")
	}
	return &Spatial{Rel: rel, Col: col, Env: r}, nil
}

func (b *Bound) bindSpatial(e *Spatial, lookup func(string) (ColumnType, bool)) (*bnode, error) {
	ci, t, err := b.column(e.Col, lookup)
	if err != nil {
		return nil, err
	}
	if t.Kind != Bytes {
		return nil, errf.Errorf("%w: column %q of type %s is not a WKB geometry", ErrIncomparable, e.Col, t)
	}
	rel, ok := spatialRels[e.Rel]
	if !ok {
		return nil, errf.Errorf("%w: spatial relation %q", ErrSyntax, e.Rel)
	}
	return &bnode{op: bSpatial, col: ci, only: ci, env: e.Env, rel: rel, spherical: e.Spherical}, nil
}

// spatialRows tests each non-null row's geometry; the first malformed one is the error.
func spatialRows(nd *bnode, v *Vector, st storage, out []uint8, col string) error {
	var s geo.Shape
	for i := range out {
		out[i] = tNull
		if !v.valid(i) {
			continue
		}
		if err := s.Parse(v.bytesAt(st, i)); err != nil {
			return errf.Errorf("column %q, row %d of the batch: %w", col, i, err)
		}
		if nd.spherical {
			for _, p := range s.Parts {
				if p.Kind != geo.Point {
					return errf.Errorf("column %q, row %d of the batch: %w: a line or polygon with spherical edges (only points are tested)", col, i, geo.ErrUnsupported)
				}
			}
		}
		ok, err := geo.Relate(&s, nd.env, nd.rel)
		if err != nil {
			return errf.Errorf("column %q, row %d of the batch: %w", col, i, err)
		}
		out[i] = truth(ok)
	}
	return nil
}

// spatialStats: a chunk whose geospatial bounding box misses the envelope holds no match
// (each relation implies the geometry meets the envelope).
func spatialStats(nd *bnode, s *ColStats) uint8 {
	if s.Geo != nil && s.Geo.Valid() && !s.Geo.Meets(nd.env) {
		return sFalse
	}
	return sTrue | sFalse
}

// HasSpatial reports whether e holds a Spatial node.
func HasSpatial(e Expr) bool {
	switch x := e.(type) {
	case *And:
		return slices.ContainsFunc(x.Args, HasSpatial)
	case *Or:
		return slices.ContainsFunc(x.Args, HasSpatial)
	case *Not:
		return HasSpatial(x.Arg)
	case *Spatial:
		return true
	}
	return false
}

// Covering names the bbox covering columns of a geometry column (GeoParquet 1.1).
type Covering struct{ XMin, YMin, XMax, YMax string }

// ExpandSpatial rewrites every Spatial node on a column that covering knows into
//
//	(xmax >= env.xmin OR xmax IS NULL) AND (xmin <= env.xmax OR xmin IS NULL) AND … AND spatial
//
// over the covering columns, which the spatial predicate implies (a row's covering box holds
// its geometry), so the answer is unchanged while the covering's statistics, page index and
// cheap float values decide most rows before a geometry is read. The literals are rounded
// outward to float32 (covering columns are float32 or double), so no bound is cut by
// rounding. spherical says a column's edges are great circles (Spatial.Spherical). A node
// that is not spatial is returned as is.
func ExpandSpatial(e Expr, covering func(col string) (Covering, bool), spherical func(col string) bool) Expr {
	switch x := e.(type) {
	case *And:
		var args []Expr
		for _, a := range x.Args {
			a = ExpandSpatial(a, covering, spherical)
			if inner, ok := a.(*And); ok {
				args = append(args, inner.Args...) // conjuncts of its own, for the row filter's stages
			} else {
				args = append(args, a)
			}
		}
		return &And{Args: args}
	case *Or:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = ExpandSpatial(a, covering, spherical)
		}
		return &Or{Args: args}
	case *Not:
		return &Not{Arg: ExpandSpatial(x.Arg, covering, spherical)}
	case *Spatial:
		s := *x
		s.Spherical = spherical(x.Col)
		c, ok := covering(x.Col)
		if !ok {
			return &s
		}
		env := s.Env
		// Each term: (col >= lo [OR col2 <= hi] OR col IS NULL), the bounds rounded outward.
		terms := [][]Cmp{{cmp32(OpGe, c.XMax, env.XMin)}, {cmp32(OpLe, c.XMin, env.XMax)}, {cmp32(OpGe, c.YMax, env.YMin)}, {cmp32(OpLe, c.YMin, env.YMax)}}
		if env.Wraps() {
			terms = append([][]Cmp{{terms[0][0], terms[1][0]}}, terms[2:]...)
		}
		var args []Expr
	next:
		for _, t := range terms {
			or := &Or{}
			for i := range t {
				if t[i].Value.Text == "" {
					continue next // beyond float32: keeps every row
				}
				or.Args = append(or.Args, &t[i])
			}
			args = append(args, &Or{Args: append(or.Args, &IsNull{Col: t[0].Col})})
		}
		return &And{Args: append(args, &s)}
	}
	return e
}

// cmp32 is col op f with f rounded outward to float32 (down for >=, up for <=); its literal's
// Text is empty when that float32 is infinite.
func cmp32(op Op, col string, f float64) Cmp {
	g := geo.Up32(f)
	if op == OpGe {
		g = geo.Down32(f)
	}
	c := Cmp{Op: op, Col: col}
	if !math.IsInf(float64(g), 0) {
		c.Value = FloatLit(fmtF(float64(g)))
	}
	return c
}
