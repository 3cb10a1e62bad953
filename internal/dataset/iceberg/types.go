package iceberg

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
	"github.com/pqscan/pqscan/internal/variant"
)

// Iceberg types as the engine's Arrow fields (spec § Schemas and Data Types, Appendix A
// "Format-specific Requirements", Parquet): the types the engine's Parquet decoder gives the
// columns Iceberg writers write, so that a file column fits its table column without a cast.
// Every field carries its field id (tablescan.MetaFieldID): files are matched by id, so a
// renamed column finds its data and a dropped-and-re-added one does not.

// uuidMeta is the extension the decoder puts on a UUID column (a 16-byte fixed).
var uuidMeta = [][2]string{{"ARROW:extension:name", "arrow.uuid"}, {"ARROW:extension:metadata", ""}}

// ArrowFields converts a schema's fields. Every field is nullable in the table: a file
// written before a column existed has none of its values.
func ArrowFields(fs []StructField) ([]arrowipc.Field, error) {
	out := make([]arrowipc.Field, 0, len(fs))
	for _, f := range fs {
		a, err := arrowField(f.Name, f.ID, f.Type, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func arrowField(name string, id int, t Type, depth int) (arrowipc.Field, error) {
	out := arrowipc.Field{Name: name, Nullable: true, Metadata: [][2]string{{tablescan.MetaFieldID, strconv.Itoa(id)}}}
	if depth > 64 {
		return out, errf.Errorf("%w: column %q nests deeper than 64", ErrMalformed, name)
	}
	dt := &out.Type
	var err error
	switch t.Kind {
	case "struct":
		dt.ID = arrowipc.Struct
		for _, f := range t.Fields {
			var k arrowipc.Field
			if k, err = arrowField(f.Name, f.ID, f.Type, depth+1); err != nil {
				return out, err
			}
			dt.Fields = append(dt.Fields, k)
		}
		return out, nil
	case "list":
		el, err := arrowField("element", t.ElementID, *t.Element, depth+1)
		dt.ID, dt.Elem = arrowipc.List, &el
		return out, err
	case "map":
		k, err := arrowField("key", t.KeyID, *t.Key, depth+1)
		if err != nil {
			return out, err
		}
		k.Nullable = false
		v, err := arrowField("value", t.ValueID, *t.Value, depth+1)
		dt.ID = arrowipc.Map
		dt.Elem = &arrowipc.Field{Name: "key_value", Type: arrowipc.DataType{ID: arrowipc.Struct, Fields: []arrowipc.Field{k, v}}}
		return out, err
	}
	p := t.Prim
	switch {
	case p == "boolean":
		dt.ID = arrowipc.Bool
	case p == "int":
		dt.ID, dt.BitWidth, dt.Signed = arrowipc.Int, 32, true
	case p == "long":
		dt.ID, dt.BitWidth, dt.Signed = arrowipc.Int, 64, true
	case p == "float":
		dt.ID, dt.BitWidth = arrowipc.Float, 32
	case p == "double":
		dt.ID, dt.BitWidth = arrowipc.Float, 64
	case p == "date":
		dt.ID = arrowipc.Date32
	case p == "time":
		dt.ID, dt.BitWidth, dt.Unit = arrowipc.Time, 64, arrowipc.Microsecond
	case p == "timestamp", p == "timestamptz", p == "timestamp_ns", p == "timestamptz_ns":
		dt.ID, dt.Unit = arrowipc.Timestamp, arrowipc.Microsecond
		if strings.HasSuffix(p, "_ns") {
			dt.Unit = arrowipc.Nanosecond
		}
		if strings.HasPrefix(p, "timestamptz") {
			dt.TZ = "UTC"
		}
	case p == "string":
		dt.ID = arrowipc.Utf8
	case p == "binary":
		dt.ID = arrowipc.Binary
	case p == "uuid":
		dt.ID, dt.ByteWidth = arrowipc.FixedSizeBinary, 16
		out.Metadata = append(out.Metadata, uuidMeta...)
	case p == "geometry", p == "geography", strings.HasPrefix(p, "geometry(") && strings.HasSuffix(p, ")"),
		strings.HasPrefix(p, "geography(") && strings.HasSuffix(p, ")"):
		// v3: WKB, as the Parquet GEOMETRY/GEOGRAPHY columns the files hold (whose scans
		// type them geoarrow.wkb too), with the type's CRS and a geography's edges.
		dt.ID = arrowipc.Binary
		out.Metadata = append(out.Metadata, geoMeta(p)...)
	case p == "unknown":
		// v3: a column whose type is not known yet, always null and never in a data file.
		dt.ID = arrowipc.Null
	case p == "variant":
		// v3: the canonical unshredded variant, however each file shredded it.
		*dt = variant.ArrowType
		out.Metadata = append(out.Metadata, variant.ArrowMeta...)
	case strings.HasPrefix(p, "fixed[") && strings.HasSuffix(p, "]"):
		n, err := strconv.Atoi(p[len("fixed[") : len(p)-1])
		if err != nil || n <= 0 || n > 1<<20 {
			return out, errf.Errorf("%w: column %q: type %q", ErrMalformed, name, p)
		}
		dt.ID, dt.ByteWidth = arrowipc.FixedSizeBinary, n
	case strings.HasPrefix(p, "decimal(") && strings.HasSuffix(p, ")"):
		ps, ss, _ := strings.Cut(p[len("decimal("):len(p)-1], ",")
		prec, err1 := strconv.Atoi(strings.TrimSpace(ps))
		scale, err2 := strconv.Atoi(strings.TrimSpace(ss))
		if err1 != nil || err2 != nil || prec < 1 || prec > 38 || scale < 0 || scale > prec {
			return out, errf.Errorf("%w: column %q: type %q", ErrMalformed, name, p)
		}
		dt.ID, dt.BitWidth, dt.Precision, dt.Scale = arrowipc.Decimal, 128, prec, scale
	default:
		return out, errf.Errorf("%w: column %q has type %q", ErrUnsupportedFeature, name, p)
	}
	return out, nil
}

// geoMeta is the geoarrow.wkb metadata of an Iceberg geometry(C) or geography(C, A) type: C
// defaults to OGC:CRS84 and A to spherical (spec, "Primitive Types"). A projjson:KEY CRS
// names a table property, which the schema does not carry: it is kept as text.
func geoMeta(p string) [][2]string {
	name, args, _ := strings.Cut(strings.TrimSuffix(p, ")"), "(")
	crs, edges := strings.TrimSpace(args), ""
	if name == "geography" {
		edges = "spherical"
		if i := strings.LastIndex(crs, ","); i >= 0 {
			switch a := strings.ToLower(strings.TrimSpace(crs[i+1:])); a {
			case "spherical", "vincenty", "thomas", "andoyer", "karney":
				crs, edges = strings.TrimSpace(crs[:i]), a
			}
		}
	}
	if strings.EqualFold(crs, "OGC:CRS84") {
		crs = ""
	}
	return scan.GeoArrowMeta(crs, edges, func(string) (string, bool) { return "", false })
}
