package geo

import "encoding/json"

// parseMetaStd is ParseMeta through encoding/json: the oracle FuzzMeta compares parseMetaLite
// with.
func parseMetaStd(b []byte) (*Meta, error) {
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
		mc := metaCol{Encoding: c.Encoding, Edges: c.Edges, CRS: c.CRS, BBox: c.BBox}
		if c.Covering != nil {
			mc.Covering = &struct {
				BBox *struct{ XMin, YMin, XMax, YMax []string }
			}{}
			if bb := c.Covering.BBox; bb != nil {
				mc.Covering.BBox = &struct{ XMin, YMin, XMax, YMax []string }{bb.XMin, bb.YMin, bb.XMax, bb.YMax}
			}
		}
		if err := finishColumn(m, name, mc); err != nil {
			return nil, err
		}
	}
	return m, nil
}
