// Package geosample generates Overture-like GeoParquet files, deterministically (a fixed seed
// gives the same bytes), with arrow-go's pqarrow writer: places (points) and buildings (small
// polygons, some with a courtyard hole, some of two parts) clustered around a few cities, one
// of them on the antimeridian.
//
// Columns, in file order:
//
//	id        INT64    the row's number in generation order
//	category  STRING   a few values, skewed
//	geometry  BINARY   WKB (little endian): POINT, POLYGON or MULTIPOLYGON
//	bbox      STRUCT<xmin, ymin, xmax, ymax: FLOAT>   the geometry's bounds rounded outward
//	          to float32, as Overture writes them (so the bbox alone over-matches at the edges)
//
// Rows are sorted along a Hilbert curve of their bbox centres; 2^16-row row groups, zstd,
// ~16 KiB pages, no dictionary but for category, statistics and a page index; the `geo` key holds GeoParquet 1.1 metadata with
// the bbox covering. Not for use in the wasm module (it imports arrow-go).
package geosample

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/geo"
)

// Kind says which file to generate.
type Kind string

const (
	Places    Kind = "places"
	Buildings Kind = "buildings"
)

// Config says what to generate.
type Config struct {
	Kind         Kind
	Rows         int
	RowGroupRows int    // 0: 65,536
	Seed         uint64 // 0: a fixed default
}

// City is a cluster centre; Spread is the standard deviation of its rows, in degrees.
type City struct {
	Name     string
	Lon, Lat float64
	Spread   float64
	Weight   float64
}

// Cities are the clusters, Suva on the antimeridian (its rows wrap to both sides of ±180).
var Cities = []City{
	{"paris", 2.3522, 48.8566, 0.08, 3},
	{"new-york", -73.9857, 40.7484, 0.1, 4},
	{"tokyo", 139.6917, 35.6895, 0.12, 4},
	{"sao-paulo", -46.6333, -23.5505, 0.1, 2},
	{"lagos", 3.3792, 6.5244, 0.07, 1},
	{"suva", 179.98, -18.1248, 0.05, 1},
}

var categories = []string{"restaurant", "shop", "school", "park", "hotel", "bank", "museum", "hospital"}

// PageSize is the data page size limit given to the writer.
const PageSize = 16 << 10

// Row is one generated row, before writing.
type Row struct {
	ID       int64
	Category string
	WKB      []byte
	// Min and Max are the geometry's exact bounds (x, y).
	Min, Max [2]float64
}

// Rows draws cfg's rows, Hilbert-sorted.
func Rows(cfg Config) ([]Row, error) {
	if cfg.Rows <= 0 || cfg.Kind != Places && cfg.Kind != Buildings {
		return nil, fmt.Errorf("geosample: %d rows of %q", cfg.Rows, cfg.Kind)
	}
	seed := cmp.Or(cfg.Seed, 20261202)
	r := rand.New(rand.NewPCG(seed, uint64(len(cfg.Kind))))
	total := 0.0
	for _, c := range Cities {
		total += c.Weight
	}
	rows := make([]Row, cfg.Rows)
	for i := range rows {
		u, c := r.Float64()*total, Cities[0]
		for _, c = range Cities {
			if u -= c.Weight; u < 0 {
				break
			}
		}
		x, y := c.Lon+r.NormFloat64()*c.Spread, c.Lat+r.NormFloat64()*c.Spread*0.7
		x = wrapLon(x)
		row := Row{ID: int64(i), Category: categories[min(len(categories)-1, int(r.ExpFloat64()*1.5))]}
		if cfg.Kind == Places {
			row.WKB = appendPoint(nil, x, y)
			row.Min, row.Max = [2]float64{x, y}, [2]float64{x, y}
		} else {
			row.WKB, row.Min, row.Max = building(r, x, y)
		}
		rows[i] = row
	}
	keys := make([]uint64, len(rows))
	for i := range rows {
		keys[i] = geo.Hilbert((rows[i].Min[0]+rows[i].Max[0])/2, (rows[i].Min[1]+rows[i].Max[1])/2)
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	out := make([]Row, len(rows))
	for i, k := range idx {
		out[i] = rows[k]
	}
	return out, nil
}

func wrapLon(x float64) float64 {
	switch {
	case x > 180:
		return x - 360
	case x < -180:
		return x + 360
	}
	return x
}

// building draws a footprint of about 10–40 m at (x, y): a rotated rectangle, one in ten with
// a courtyard hole, one in twenty with a second, detached part (a MULTIPOLYGON).
func building(r *rand.Rand, x, y float64) ([]byte, [2]float64, [2]float64) {
	const m = 1.0 / 111_000 // degrees per metre, roughly
	rect := func(cx, cy, w, h, a float64) []float64 {
		s, c := math.Sincos(a)
		var ring []float64
		for _, p := range [][2]float64{{-w, -h}, {w, -h}, {w, h}, {-w, h}, {-w, -h}} {
			ring = append(ring, cx+(p[0]*c-p[1]*s)*m, cy+(p[0]*s+p[1]*c)*m)
		}
		return ring
	}
	w, h, a := 5+r.Float64()*15, 5+r.Float64()*15, r.Float64()*math.Pi
	shell := rect(x, y, w, h, a)
	poly := [][]float64{shell}
	if r.IntN(10) == 0 {
		hole := rect(x, y, w/3, h/3, a)
		for i, j := 0, len(hole)-2; i < j; i, j = i+2, j-2 { // clockwise, as holes are
			hole[i], hole[i+1], hole[j], hole[j+1] = hole[j], hole[j+1], hole[i], hole[i+1]
		}
		poly = append(poly, hole)
	}
	polys := [][][]float64{poly}
	if r.IntN(20) == 0 {
		polys = append(polys, [][]float64{rect(x+(2*w+10)*m, y, w/2, h/2, a)})
	}
	var b []byte
	if len(polys) == 1 {
		b = appendPolygon(nil, poly)
	} else {
		b = appendHeader(nil, 6)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(polys)))
		for _, p := range polys {
			b = appendPolygon(b, p)
		}
	}
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range polys {
		for k := 0; k < len(p[0]); k += 2 {
			lo[0], hi[0] = min(lo[0], p[0][k]), max(hi[0], p[0][k])
			lo[1], hi[1] = min(lo[1], p[0][k+1]), max(hi[1], p[0][k+1])
		}
	}
	return b, lo, hi
}

func appendHeader(b []byte, t uint32) []byte {
	return binary.LittleEndian.AppendUint32(append(b, 1), t)
}

func appendF(b []byte, fs ...float64) []byte {
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

func appendPoint(b []byte, x, y float64) []byte { return appendF(appendHeader(b, 1), x, y) }

func appendPolygon(b []byte, rings [][]float64) []byte {
	b = binary.LittleEndian.AppendUint32(appendHeader(b, 3), uint32(len(rings)))
	for _, ring := range rings {
		b = appendF(binary.LittleEndian.AppendUint32(b, uint32(len(ring)/2)), ring...)
	}
	return b
}

// Schema is the files' Arrow schema.
func Schema() *arrow.Schema {
	f32 := arrow.PrimitiveTypes.Float32
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "category", Type: arrow.BinaryTypes.String},
		{Name: "geometry", Type: arrow.BinaryTypes.Binary},
		{Name: "bbox", Type: arrow.StructOf(
			arrow.Field{Name: "xmin", Type: f32}, arrow.Field{Name: "ymin", Type: f32},
			arrow.Field{Name: "xmax", Type: f32}, arrow.Field{Name: "ymax", Type: f32}), Nullable: true},
	}, nil)
}

// Generate writes cfg's file to w.
func Generate(w io.Writer, cfg Config) error {
	rows, err := Rows(cfg)
	if err != nil {
		return err
	}
	return Write(w, rows, cmp.Or(cfg.RowGroupRows, 1<<16), geoMeta(cfg.Kind, rows))
}

// geoMeta is the GeoParquet 1.1 metadata of rows: WKB, the file's bbox, the covering.
func geoMeta(k Kind, rows []Row) string {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, r := range rows {
		lo[0], lo[1] = min(lo[0], r.Min[0]), min(lo[1], r.Min[1])
		hi[0], hi[1] = max(hi[0], r.Max[0]), max(hi[1], r.Max[1])
	}
	types := []string{"Point"}
	if k == Buildings {
		types = []string{"Polygon", "MultiPolygon"}
	}
	path := func(f string) []string { return []string{"bbox", f} }
	m := map[string]any{
		"version": "1.1.0", "primary_column": "geometry",
		"columns": map[string]any{"geometry": map[string]any{
			"encoding": "WKB", "geometry_types": types, "bbox": []float64{lo[0], lo[1], hi[0], hi[1]},
			"covering": map[string]any{"bbox": map[string]any{
				"xmin": path("xmin"), "ymin": path("ymin"), "xmax": path("xmax"), "ymax": path("ymax")}},
		}},
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Write writes rows in order with the package's layout and the given `geo` metadata (empty:
// none).
func Write(w io.Writer, rows []Row, rowGroupRows int, meta string) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithDataPageSize(PageSize),
		parquet.WithBatchSize(128),
		parquet.WithPageIndexEnabled(true),
		parquet.WithStats(true),
		// As Overture: unique values gain nothing from a dictionary, which a reader would
		// fetch whole for any page.
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("category", true),
	)
	schema := Schema()
	if meta != "" {
		md := arrow.NewMetadata([]string{"geo"}, []string{meta})
		schema = arrow.NewSchema(schema.Fields(), &md)
	}
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("geosample: %w", err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	id := b.Field(0).(*array.Int64Builder)
	cat := b.Field(1).(*array.StringBuilder)
	g := b.Field(2).(*array.BinaryBuilder)
	bb := b.Field(3).(*array.StructBuilder)
	var fb [4]*array.Float32Builder
	for i := range fb {
		fb[i] = bb.FieldBuilder(i).(*array.Float32Builder)
	}
	for lo := 0; lo < len(rows); lo += rowGroupRows {
		for _, r := range rows[lo:min(lo+rowGroupRows, len(rows))] {
			id.Append(r.ID)
			cat.Append(r.Category)
			g.Append(r.WKB)
			bb.Append(true)
			fb[0].Append(geo.Down32(r.Min[0]))
			fb[1].Append(geo.Down32(r.Min[1]))
			fb[2].Append(geo.Up32(r.Max[0]))
			fb[3].Append(geo.Up32(r.Max[1]))
		}
		rec := b.NewRecordBatch()
		err := fw.WriteBuffered(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("geosample: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("geosample: %w", err)
	}
	return nil
}
