package geo

import (
	"errors"
	"strconv"

	"github.com/pqscan/pqscan/internal/jsonv"
)

// ErrMeta is wrapped by errors about malformed GeoParquet `geo` metadata.
var ErrMeta = errors.New("geo: malformed GeoParquet metadata")

// Meta is the GeoParquet `geo` file metadata (versions 1.0 and 1.1): the columns that hold
// geometries and the primary one.
type Meta struct {
	Version string
	Primary string
	Columns map[string]Column
}

// Column is one geometry column's GeoParquet metadata.
type Column struct {
	Encoding string // "WKB", or a GeoArrow native encoding ("point", "polygon", ...)
	// Spherical: "edges": "spherical" (edges follow great circles; the planar exact test
	// does not apply to lines and polygons).
	Spherical bool
	// CRS is the "crs" member as written (PROJJSON, or JSON null for an unknown CRS); nil when
	// absent, which means OGC:CRS84.
	CRS []byte
	// BBox is the column's bounding box over the file, when given (2D or 3D in the file; x
	// and y here).
	BBox *Rect
	// Covering names the columns that hold each row's bounding box (1.1 "covering": {"bbox":
	// …}), each a path of field names; nil without one.
	Covering *Covering
}

// Covering is a bbox covering: the paths of the xmin, ymin, xmax and ymax columns (e.g.
// ["bbox", "xmin"]).
type Covering struct{ XMin, YMin, XMax, YMax []string }

// ParseMeta parses the value of the `geo` key-value metadata. A member of the wrong type is
// an error, a null one counts as absent, and unknown members are ignored.
func ParseMeta(b []byte) (*Meta, error) {
	return parseMetaLite(b)
}

// parseMetaLite is ParseMeta through jsonv, as encoding/json would decode it into the struct
// of parseMetaStd (meta_std_test.go: a differential test and fuzz target check that).
func parseMetaLite(b []byte) (*Meta, error) {
	root, perr := jsonv.Parse(b)
	if perr != nil {
		return nil, metaErr("", perr.Error())
	}
	if root.Kind != jsonv.Object {
		return nil, metaErr("", "not a JSON object")
	}
	version, err := metaString(&root, "version", "")
	if err != nil {
		return nil, err
	}
	primary, err := metaString(&root, "primary_column", "")
	if err != nil {
		return nil, err
	}
	cols := root.Get("columns")
	if cols != nil && cols.Kind != jsonv.Object && cols.Kind != jsonv.Null {
		return nil, metaErr("", "columns is not an object")
	}
	if cols == nil || len(cols.Keys) == 0 {
		return nil, metaErr("", "no columns")
	}
	if cols.Get(primary) == nil {
		return nil, metaErr("", "primary_column "+`"`+primary+`"`+" is not among the columns")
	}
	m := &Meta{Version: version, Primary: primary, Columns: map[string]Column{}}
	for i, name := range cols.Keys {
		if cols.Get(name) != &cols.Vals[i] {
			continue // a repeated name: its last value counts
		}
		cv := &cols.Vals[i]
		if cv.Kind == jsonv.Null {
			m.Columns[name] = Column{}
			continue
		}
		if cv.Kind != jsonv.Object {
			return nil, metaErr(name, "not an object")
		}
		c, err := metaColumn(name, cv)
		if err != nil {
			return nil, err
		}
		if err := finishColumn(m, name, c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// finishColumn checks column name's members c and adds the column to m.
func finishColumn(m *Meta, name string, c metaCol) error {
	{
		col := Column{Encoding: c.Encoding, CRS: c.CRS}
		switch c.Edges {
		case "", "planar":
		case "spherical":
			col.Spherical = true
		default:
			return metaErr(name, "edges "+`"`+c.Edges+`"`)
		}
		switch len(c.BBox) {
		case 0:
		case 4:
			col.BBox = &Rect{XMin: c.BBox[0], YMin: c.BBox[1], XMax: c.BBox[2], YMax: c.BBox[3]}
		case 6:
			col.BBox = &Rect{XMin: c.BBox[0], YMin: c.BBox[1], XMax: c.BBox[3], YMax: c.BBox[4]}
		default:
			return metaErr(name, "bbox of "+strconv.Itoa(len(c.BBox))+" numbers")
		}
		if col.BBox != nil && !col.BBox.Valid() {
			col.BBox = nil // unusable: as if absent, so it never prunes
		}
		if c.Covering != nil && c.Covering.BBox != nil {
			bb := c.Covering.BBox
			cv := &Covering{XMin: bb.XMin, YMin: bb.YMin, XMax: bb.XMax, YMax: bb.YMax}
			for _, p := range [][]string{cv.XMin, cv.YMin, cv.XMax, cv.YMax} {
				if len(p) == 0 {
					return metaErr(name, "covering bbox path missing or empty")
				}
				for _, seg := range p {
					if seg == "" {
						return metaErr(name, "empty name in a covering bbox path")
					}
				}
			}
			col.Covering = cv
		}
		m.Columns[name] = col
	}
	return nil
}

// metaErr wraps ErrMeta with msg, about column col when not empty.
func metaErr(col, msg string) error {
	if col != "" {
		msg = "column " + `"` + col + `"` + ": " + msg
	}
	return metaError(msg)
}

type metaError string

func (e metaError) Error() string { return ErrMeta.Error() + ": " + string(e) }
func (e metaError) Unwrap() error { return ErrMeta }

// metaCol is one column's members as written.
type metaCol struct {
	Encoding, Edges string
	CRS             []byte
	BBox            []float64
	Covering        *struct {
		BBox *struct{ XMin, YMin, XMax, YMax []string }
	}
}

// metaColumn reads column name's members.
func metaColumn(name string, v *jsonv.Value) (metaCol, error) {
	var c metaCol
	var err error
	if c.Encoding, err = metaString(v, "encoding", name); err != nil {
		return c, err
	}
	if c.Edges, err = metaString(v, "edges", name); err != nil {
		return c, err
	}
	if crs := v.Get("crs"); crs != nil {
		c.CRS = crs.Raw
	}
	if bb := v.Get("bbox"); bb != nil && bb.Kind != jsonv.Null {
		if bb.Kind != jsonv.Array {
			return c, metaErr(name, "bbox is not an array")
		}
		c.BBox = []float64{}
		for _, e := range bb.Elems {
			if e.Kind == jsonv.Null {
				c.BBox = append(c.BBox, 0) // as encoding/json leaves a null element
				continue
			}
			if e.Kind != jsonv.Number || e.Big {
				return c, metaErr(name, "bbox holds a non-number")
			}
			c.BBox = append(c.BBox, e.N)
		}
	}
	cov := v.Get("covering")
	if cov == nil || cov.Kind == jsonv.Null {
		return c, nil
	}
	if cov.Kind != jsonv.Object {
		return c, metaErr(name, "covering is not an object")
	}
	c.Covering = &struct {
		BBox *struct{ XMin, YMin, XMax, YMax []string }
	}{}
	bb := cov.Get("bbox")
	if bb == nil || bb.Kind == jsonv.Null {
		return c, nil
	}
	if bb.Kind != jsonv.Object {
		return c, metaErr(name, "covering bbox is not an object")
	}
	c.Covering.BBox = &struct{ XMin, YMin, XMax, YMax []string }{}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"xmin", &c.Covering.BBox.XMin}, {"ymin", &c.Covering.BBox.YMin}, {"xmax", &c.Covering.BBox.XMax}, {"ymax", &c.Covering.BBox.YMax}} {
		p := bb.Get(f.key)
		if p == nil || p.Kind == jsonv.Null {
			continue
		}
		if p.Kind != jsonv.Array {
			return c, metaErr(name, "covering bbox "+f.key+" is not an array")
		}
		*f.dst = []string{}
		for _, e := range p.Elems {
			switch e.Kind {
			case jsonv.String:
				*f.dst = append(*f.dst, e.S)
			case jsonv.Null:
				*f.dst = append(*f.dst, "")
			default:
				return c, metaErr(name, "covering bbox "+f.key+" holds a non-string")
			}
		}
	}
	return c, nil
}

// metaString is member key of v as a string: "" when absent or null, an error when another
// type (about column col when not empty).
func metaString(v *jsonv.Value, key, col string) (string, error) {
	m := v.Get(key)
	if m == nil || m.Kind == jsonv.Null {
		return "", nil
	}
	if m.Kind != jsonv.String {
		return "", metaErr(col, key+" is not a string")
	}
	return m.S, nil
}
