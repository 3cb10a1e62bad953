package scan

import (
	"fmt"
	"strings"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/prune"
)

// expandSpatial fits a predicate's spatial terms to the file: the GeoParquet 1.1 bbox
// covering columns of their geometry column join them (prune.ExpandSpatial), so that the
// covering's statistics and page index prune and its values decide most rows before a
// geometry is read, and columns with spherical edges (GEOGRAPHY, "edges": "spherical") are
// marked. A predicate without spatial terms is returned as is.
func expandSpatial(e prune.Expr, schema *decode.Schema, kv []format.KeyValue) (prune.Expr, error) {
	if e == nil || !prune.HasSpatial(e) {
		return e, nil
	}
	var meta *geo.Meta
	for _, p := range kv {
		if p.Key == "geo" && p.Value != nil {
			m, err := geo.ParseMeta([]byte(*p.Value))
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrOptions, err)
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
	return prune.ExpandSpatial(e, covering, spherical), nil
}
