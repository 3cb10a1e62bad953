package geo

import (
	"errors"
	"strconv"
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
	if leanJSON {
		return parseMetaLite(b)
	}
	return parseMetaStd(b)
}

// parseMetaLite is ParseMeta through this package's JSON reader (json.go), as encoding/json
// would decode it into the struct of parseMetaStd (a differential test and fuzz target check
// that).
func parseMetaLite(b []byte) (*Meta, error) {
	root, perr := parseJSON(b)
	if perr != "" {
		return nil, metaErr("", perr)
	}
	if root.Kind != jObject {
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
	cols := root.get("columns")
	if cols != nil && cols.Kind != jObject && cols.Kind != jNull {
		return nil, metaErr("", "columns is not an object")
	}
	if cols == nil || len(cols.Keys) == 0 {
		return nil, metaErr("", "no columns")
	}
	if cols.get(primary) == nil {
		return nil, metaErr("", "primary_column "+`"`+primary+`"`+" is not among the columns")
	}
	m := &Meta{Version: version, Primary: primary, Columns: map[string]Column{}}
	for i, name := range cols.Keys {
		if cols.get(name) != &cols.Vals[i] {
			continue // a repeated name: its last value counts
		}
		cv := &cols.Vals[i]
		if cv.Kind == jNull {
			m.Columns[name] = Column{}
			continue
		}
		if cv.Kind != jObject {
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
func metaColumn(name string, v *jsonValue) (metaCol, error) {
	var c metaCol
	var err error
	if c.Encoding, err = metaString(v, "encoding", name); err != nil {
		return c, err
	}
	if c.Edges, err = metaString(v, "edges", name); err != nil {
		return c, err
	}
	if crs := v.get("crs"); crs != nil {
		c.CRS = crs.Raw
	}
	if bb := v.get("bbox"); bb != nil && bb.Kind != jNull {
		if bb.Kind != jArray {
			return c, metaErr(name, "bbox is not an array")
		}
		c.BBox = []float64{}
		for _, e := range bb.Elems {
			if e.Kind == jNull {
				c.BBox = append(c.BBox, 0) // as encoding/json leaves a null element
				continue
			}
			if e.Kind != jNumber || e.Big {
				return c, metaErr(name, "bbox holds a non-number")
			}
			c.BBox = append(c.BBox, e.N)
		}
	}
	cov := v.get("covering")
	if cov == nil || cov.Kind == jNull {
		return c, nil
	}
	if cov.Kind != jObject {
		return c, metaErr(name, "covering is not an object")
	}
	c.Covering = &struct {
		BBox *struct{ XMin, YMin, XMax, YMax []string }
	}{}
	bb := cov.get("bbox")
	if bb == nil || bb.Kind == jNull {
		return c, nil
	}
	if bb.Kind != jObject {
		return c, metaErr(name, "covering bbox is not an object")
	}
	c.Covering.BBox = &struct{ XMin, YMin, XMax, YMax []string }{}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"xmin", &c.Covering.BBox.XMin}, {"ymin", &c.Covering.BBox.YMin}, {"xmax", &c.Covering.BBox.XMax}, {"ymax", &c.Covering.BBox.YMax}} {
		p := bb.get(f.key)
		if p == nil || p.Kind == jNull {
			continue
		}
		if p.Kind != jArray {
			return c, metaErr(name, "covering bbox "+f.key+" is not an array")
		}
		*f.dst = []string{}
		for _, e := range p.Elems {
			switch e.Kind {
			case jString:
				*f.dst = append(*f.dst, e.S)
			case jNull:
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
func metaString(v *jsonValue, key, col string) (string, error) {
	m := v.get(key)
	if m == nil || m.Kind == jNull {
		return "", nil
	}
	if m.Kind != jString {
		return "", metaErr(col, key+" is not a string")
	}
	return m.S, nil
}
