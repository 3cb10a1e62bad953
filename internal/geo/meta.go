package geo

import (
	"encoding/json"
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
	CRS json.RawMessage
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

// ParseMeta parses the value of the `geo` key-value metadata.
func ParseMeta(b []byte) (*Meta, error) {
	var w struct {
		Version string `json:"version"`
		Primary string `json:"primary_column"`
		Columns map[string]struct {
			Encoding string          `json:"encoding"`
			Edges    string          `json:"edges"`
			CRS      json.RawMessage `json:"crs"`
			BBox     []float64       `json:"bbox"`
			Covering *struct {
				BBox *struct {
					XMin []string `json:"xmin"`
					YMin []string `json:"ymin"`
					XMax []string `json:"xmax"`
					YMax []string `json:"ymax"`
				} `json:"bbox"`
			} `json:"covering"`
		} `json:"columns"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, metaErr("", err.Error())
	}
	if len(w.Columns) == 0 {
		return nil, metaErr("", "no columns")
	}
	if _, ok := w.Columns[w.Primary]; !ok {
		return nil, metaErr("", "primary_column "+`"`+w.Primary+`"`+" is not among the columns")
	}
	m := &Meta{Version: w.Version, Primary: w.Primary, Columns: map[string]Column{}}
	for name, c := range w.Columns {
		col := Column{Encoding: c.Encoding, CRS: c.CRS}
		switch c.Edges {
		case "", "planar":
		case "spherical":
			col.Spherical = true
		default:
			return nil, metaErr(name, "edges "+`"`+c.Edges+`"`)
		}
		switch len(c.BBox) {
		case 0:
		case 4:
			col.BBox = &Rect{XMin: c.BBox[0], YMin: c.BBox[1], XMax: c.BBox[2], YMax: c.BBox[3]}
		case 6:
			col.BBox = &Rect{XMin: c.BBox[0], YMin: c.BBox[1], XMax: c.BBox[3], YMax: c.BBox[4]}
		default:
			return nil, metaErr(name, "bbox of "+strconv.Itoa(len(c.BBox))+" numbers")
		}
		if col.BBox != nil && !col.BBox.Valid() {
			col.BBox = nil // unusable: as if absent, so it never prunes
		}
		if c.Covering != nil && c.Covering.BBox != nil {
			bb := c.Covering.BBox
			cv := &Covering{XMin: bb.XMin, YMin: bb.YMin, XMax: bb.XMax, YMax: bb.YMax}
			for _, p := range [][]string{cv.XMin, cv.YMin, cv.XMax, cv.YMax} {
				if len(p) == 0 {
					return nil, metaErr(name, "covering bbox path missing or empty")
				}
				for _, seg := range p {
					if seg == "" {
						return nil, metaErr(name, "empty name in a covering bbox path")
					}
				}
			}
			col.Covering = cv
		}
		m.Columns[name] = col
	}
	return m, nil
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
