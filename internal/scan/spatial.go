package scan

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/jsonw"
	"github.com/pqscan/pqscan/internal/prune"
)

// expandSpatial fits a predicate's spatial terms to the file: the GeoParquet 1.1 bbox
// covering columns of their geometry column join them (prune.ExpandSpatial), so that the
// covering's statistics and page index prune and its values decide most rows before a
// geometry is read, and columns with spherical edges (GEOGRAPHY, "edges": "spherical") are
// marked. A predicate without spatial terms is returned as is.
func expandSpatial(e prune.Expr, schema *decode.Schema, kv []format.KeyValue) (prune.Expr, map[string]bool, error) {
	if e == nil || !prune.HasSpatial(e) {
		return e, nil, nil
	}
	cover := map[string]bool{}
	var meta *geo.Meta
	for _, p := range kv {
		if p.Key == "geo" && p.Value != nil {
			m, err := geo.ParseMeta([]byte(*p.Value))
			if err != nil {
				return nil, nil, errf.Errorf("%w: %v", ErrOptions, err)
			}
			meta = m
		}
	}
	covering := func(col string) (prune.Covering, bool) {
		if meta == nil || meta.Columns[col].Covering == nil {
			return prune.Covering{}, false
		}
		cv := meta.Columns[col].Covering
		c := prune.Covering{XMin: strings.Join(cv.XMin, "."), YMin: strings.Join(cv.YMin, "."),
			XMax: strings.Join(cv.XMax, "."), YMax: strings.Join(cv.YMax, ".")}
		for _, path := range []string{c.XMin, c.YMin, c.XMax, c.YMax} {
			l, ok := schema.Find(path)
			if !ok || l.Kind != decode.KindLeaf || l.Node.RepLevel > 0 {
				return c, false // a covering the file does not hold: no pruning from it
			}
			if t, ok := pruneType(l); !ok || t.Kind != prune.Float {
				return c, false
			}
		}
		for _, path := range []string{c.XMin, c.YMin, c.XMax, c.YMax} {
			cover[path] = true
		}
		return c, true
	}
	spherical := func(col string) bool {
		if meta != nil && meta.Columns[col].Spherical {
			return true
		}
		l, ok := schema.Find(col)
		return ok && l.Node != nil && l.Node.Elem.LogicalType != nil &&
			l.Node.Elem.LogicalType.Kind == format.LogicalGeography
	}
	return prune.ExpandSpatial(e, covering, spherical), cover, nil
}

// preStage is the part of a predicate that a scan evaluates over the covering columns alone
// before it fetches the other predicate columns (geometries): the top-level conjuncts over
// covering columns only, when a spatial term is another conjunct. The geometry pages are
// then fetched only over the rows whose covering box meets the envelope, not over every row
// the page index keeps. nil when the predicate has no such split.
func preStage(e prune.Expr, cover map[string]bool, p *predicate) (*stage, error) {
	a, ok := e.(*prune.And)
	if !ok || len(cover) == 0 {
		return nil, nil
	}
	var pre []prune.Expr
	spatial := false
	for _, c := range a.Args {
		if _, ok := c.(*prune.Spatial); ok {
			spatial = true
			continue
		}
		cols := prune.Columns(c)
		all := len(cols) > 0
		for _, col := range cols {
			all = all && cover[col]
		}
		if all {
			pre = append(pre, c)
		}
	}
	if !spatial || len(pre) == 0 {
		return nil, nil
	}
	b, err := prune.Bind(&prune.And{Args: pre}, func(path string) (prune.ColumnType, bool) {
		t, ok := p.types[path]
		return t, ok
	})
	if err != nil {
		return nil, err
	}
	return &stage{bound: b, paths: b.Columns(), name: "covering"}, nil
}

// preFilter narrows each row group's candidate rows to those the covering conjuncts pass
// (preStage), once their pages are in; ok is false while it needs bytes (st).
func (s *Scanner) preFilter() (st Step, ok bool, err error) {
	pre := s.pred.pre
	cfs, st, ok := s.fetchRound(func() ([]colFetch, error) {
		var cfs []colFetch
		for _, g := range s.window {
			if g.filtered || g.allMatch {
				continue
			}
			for _, l := range s.pred.leavesOf(pre.paths) {
				cf, err := s.fetchFor(g, l, g.cand)
				if err != nil {
					return nil, err
				}
				cfs = append(cfs, cf)
			}
		}
		return cfs, nil
	})
	if !ok {
		return st, false, nil
	}
	s.markFetched(cfs)
	for _, g := range s.window {
		if g.filtered || g.allMatch || len(g.cand) == 0 {
			continue
		}
		if g.cand, err = s.evalStage(g, pre, g.cand); err != nil {
			return Step{}, false, errf.Errorf("row group %d: %w", g.idx, err)
		}
	}
	return Step{}, true, nil
}

// geoArrowMeta is the GeoArrow extension metadata (geoarrow.wkb, with the CRS and edges) of
// a top-level output column holding WKB geometries, so that map libraries take the batches
// as they are; nil for other columns. A column is a geometry column when the GeoParquet
// metadata names it with the WKB encoding or its logical type is GEOMETRY or GEOGRAPHY.
func geoArrowMeta(c *decode.Column, kv []format.KeyValue) [][2]string {
	if c.Kind != decode.KindLeaf || c.Field.Type.ID != arrowipc.Binary || c.Field.Type.Dictionary {
		return nil
	}
	value := func(key string) (string, bool) {
		for _, p := range kv {
			if p.Key == key && p.Value != nil {
				return *p.Value, true
			}
		}
		return "", false
	}
	crs84 := `"crs":"OGC:CRS84","crs_type":"authority_code"`
	var body string
	if lt := c.Node.Elem.LogicalType; lt != nil && (lt.Kind == format.LogicalGeometry || lt.Kind == format.LogicalGeography) {
		edges := ""
		if lt.Kind == format.LogicalGeography {
			alg := format.Spherical
			if lt.Algorithm != nil {
				alg = *lt.Algorithm
			}
			edges = strings.ToLower(alg.String())
		}
		crs := ""
		if lt.CRS != nil {
			crs = *lt.CRS
		}
		return GeoArrowMeta(crs, edges, value)
	} else if v, ok := value("geo"); ok {
		m, err := geo.ParseMeta([]byte(v))
		if err != nil {
			return nil
		}
		gc, ok := m.Columns[c.Field.Name]
		if !ok || !strings.EqualFold(gc.Encoding, "WKB") {
			return nil
		}
		switch {
		case gc.CRS == nil:
			body = crs84
		case string(gc.CRS) != "null": // null: an unknown CRS, left out
			body = `"crs":` + string(gc.CRS) + `,"crs_type":"projjson"`
		}
		if gc.Spherical {
			body = strings.TrimPrefix(body+`,"edges":"spherical"`, ",")
		}
	} else {
		return nil
	}
	return [][2]string{{"ARROW:extension:name", "geoarrow.wkb"}, {"ARROW:extension:metadata", "{" + body + "}"}}
}

// GeoArrowMeta is the geoarrow.wkb extension metadata of a GEOMETRY or GEOGRAPHY column (a
// Parquet logical type, an Iceberg v3 type) whose CRS is crs in the Parquet and Iceberg
// spelling ("" for the default OGC:CRS84, "srid:N", "projjson:KEY" naming a metadata entry
// that value looks up, anything else as is) and whose edges are edges ("" for planar
// geometry, else a geography's interpolation algorithm, lower case).
func GeoArrowMeta(crs, edges string, value func(key string) (string, bool)) [][2]string {
	q := func(s string) string { return string(jsonw.String(nil, s)) }
	body := `"crs":"OGC:CRS84","crs_type":"authority_code"`
	switch {
	case crs == "":
	case strings.HasPrefix(crs, "srid:"):
		body = `"crs":` + q(crs[5:]) + `,"crs_type":"srid"`
	case strings.HasPrefix(crs, "projjson:"):
		if v, ok := value(crs[9:]); ok && jsonv.Valid([]byte(v)) {
			body = `"crs":` + v + `,"crs_type":"projjson"`
		} else {
			body = `"crs":` + q(crs)
		}
	default:
		body = `"crs":` + q(crs)
	}
	if edges != "" {
		body += `,"edges":` + q(edges)
	}
	return [][2]string{{"ARROW:extension:name", "geoarrow.wkb"}, {"ARROW:extension:metadata", "{" + body + "}"}}
}

// fileBoxes are the GeoParquet metadata's column bounding boxes of planar geometry columns
// (spherical ones are left out: their boxes need not bound the edges); nil without any.
func fileBoxes(kv []format.KeyValue) map[string]*geo.Rect {
	var out map[string]*geo.Rect
	for _, p := range kv {
		if p.Key != "geo" || p.Value == nil {
			continue
		}
		m, err := geo.ParseMeta([]byte(*p.Value))
		if err != nil {
			return nil
		}
		for name, c := range m.Columns {
			if c.BBox != nil && !c.Spherical {
				if out == nil {
					out = map[string]*geo.Rect{}
				}
				out[name] = c.BBox
			}
		}
	}
	return out
}
