package format

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// These tests compare decoded structures with hyparquet's <name>.metadata.json,
// <name>.column_indexes.json and <name>.offset_indexes.json (see testdata/README.md for their
// conventions). The decoded value is rendered into the same JSON shape and the two trees are
// compared key by key, so a wrong field id, a missing field or an extra field all fail.

// skip marks a value that is not compared (statistics decoded to types this test does not model).
const skip = "\x00skip"

// Test_DecodeFileMetaData_hyparquet checks every hyparquet file's footer against its metadata.json.
func Test_DecodeFileMetaData_hyparquet(t *testing.T) {
	files := expectations(t, ".metadata.json")
	require.True(t, len(files) >= 50, "expected the hyparquet metadata files, found", len(files))
	for _, jsonName := range files {
		name := strings.TrimSuffix(jsonName, ".metadata.json")
		t.Run(name, func(t *testing.T) {
			var want map[string]any
			require.NoError(t, json.Unmarshal(testcorpus.Read(t, jsonName), &want))
			meta, magic, ok := footer(testcorpus.Read(t, name+".parquet"))
			require.True(t, ok && magic == Magic, name)
			require.Equal(t, want["metadata_length"], float64(len(meta)), "metadata_length")
			delete(want, "metadata_length")
			m, err := DecodeFileMetaData(meta)
			require.NoError(t, err)
			got := normalize(t, fileMetaDataJSON(m))
			for _, dv := range hyparquetDeviations[name] {
				addDeviation(got.(map[string]any), dv.path, dv.want)
			}
			for _, d := range diff("", want, got) {
				t.Error(d)
			}
		})
	}
}

// expectations returns the corpus files named <name><suffix> that have a <name>.parquet beside
// them: hyparquet's convention. Other JSON files share the suffix (an Iceberg table's
// vN.metadata.json) and are not expectations of a Parquet file.
func expectations(t *testing.T, suffix string) []string {
	t.Helper()
	root := testcorpus.Dir(t)
	var out []string
	for _, f := range testcorpus.Files(t, suffix) {
		if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(f, suffix)+".parquet")); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// hyparquetDeviations lists the places where hyparquet's JSON shows something that is not in
// the Thrift footer; the test adds want at path into the decoded tree (after checking the path
// is absent from the footer, so that a deviation cannot hide a decoding bug).
var hyparquetDeviations = map[string][]struct {
	path []string
	want any
}{
	// hyparquet derives a GEOMETRY logical type from the GeoParquet "geo" key-value metadata.
	"hyparquet/geoparquet": {{[]string{"schema", "6", "logical_type"},
		map[string]any{"type": "GEOMETRY", "crs": "OGC:CRS84"}}},
}

// addDeviation sets want at path in tree, failing if something is already there.
func addDeviation(tree map[string]any, path []string, want any) {
	var cur any = tree
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if _, ok := c[p]; ok {
					panic("deviation path present in the footer: " + strings.Join(path, "."))
				}
				c[p] = want
				return
			}
			cur = c[p]
		case []any:
			var idx int
			fmt.Sscan(p, &idx)
			cur = c[idx]
		}
	}
}

// Test_DecodePageIndex_hyparquet:  Test_DecodeOffsetIndex_hyparquet decode every page index
// that hyparquet has an expectation for, from the offsets in the footer.
func Test_DecodePageIndex_hyparquet(t *testing.T) {
	for _, kind := range []string{"column_indexes", "offset_indexes"} {
		files := expectations(t, "."+kind+".json")
		require.True(t, len(files) >= 5, kind, len(files))
		for _, jsonName := range files {
			name := strings.TrimSuffix(jsonName, "."+kind+".json")
			t.Run(kind+"/"+name, func(t *testing.T) {
				var want []any
				require.NoError(t, json.Unmarshal(testcorpus.Read(t, jsonName), &want))
				file := testcorpus.Read(t, name+".parquet")
				meta, _, _ := footer(file)
				m, err := DecodeFileMetaData(meta)
				require.NoError(t, err)
				var got []any
				for _, rg := range m.RowGroups {
					var row []any
					for i := range rg.Columns {
						row = append(row, pageIndexJSON(t, kind, file, m, &rg.Columns[i], i))
					}
					got = append(got, row)
				}
				for _, d := range diff("", want, normalize(t, got)) {
					t.Error(d)
				}
			})
		}
	}
}

func pageIndexJSON(t *testing.T, kind string, file []byte, m *FileMetaData, c *ColumnChunk, col int) any {
	if kind == "offset_indexes" {
		if c.OffsetIndexOffset == nil {
			return nil
		}
		oi, err := DecodeOffsetIndex(slice(t, file, *c.OffsetIndexOffset, int64(*c.OffsetIndexLength)))
		require.NoError(t, err)
		var locs []any
		for _, p := range oi.PageLocations {
			locs = append(locs, map[string]any{"offset": p.Offset,
				"compressed_page_size": p.CompressedPageSize, "first_row_index": p.FirstRowIndex})
		}
		out := map[string]any{"page_locations": locs}
		if oi.UnencodedByteArrayDataBytes != nil {
			out["unencoded_byte_array_data_bytes"] = oi.UnencodedByteArrayDataBytes
		}
		return out
	}
	if c.ColumnIndexOffset == nil {
		return nil
	}
	ci, err := DecodeColumnIndex(slice(t, file, *c.ColumnIndexOffset, int64(*c.ColumnIndexLength)))
	require.NoError(t, err)
	leaf := leaves(m.Schema)[col]
	vals := func(v [][]byte) []any {
		out := make([]any, len(v))
		for i, b := range v {
			if ci.NullPages[i] {
				out[i] = skip // hyparquet shows these as whatever decoding empty bytes gives
				continue
			}
			out[i] = statValue(leaf, b)
		}
		return out
	}
	out := map[string]any{"null_pages": ci.NullPages, "min_values": vals(ci.MinValues),
		"max_values": vals(ci.MaxValues), "boundary_order": ci.BoundaryOrder.String()}
	setIf(out, "null_counts", ci.NullCounts)
	setIf(out, "repetition_level_histograms", ci.RepetitionLevelHistograms)
	setIf(out, "definition_level_histograms", ci.DefinitionLevelHistograms)
	setIf(out, "nan_counts", ci.NanCounts)
	return out
}

func slice(t *testing.T, file []byte, off, n int64) []byte {
	t.Helper()
	require.True(t, off >= 0 && n >= 0 && off+n <= int64(len(file)), "range", off, n)
	return file[off : off+n]
}

func setIf[T any](m map[string]any, k string, v []T) {
	if v != nil {
		m[k] = v
	}
}

// leaves returns the schema elements that are leaves, in column order.
func leaves(schema []SchemaElement) []*SchemaElement {
	var out []*SchemaElement
	for i := range schema {
		if schema[i].NumChildren == nil || *schema[i].NumChildren == 0 {
			if i > 0 {
				out = append(out, &schema[i])
			}
		}
	}
	return out
}

func fileMetaDataJSON(m *FileMetaData) map[string]any {
	out := map[string]any{"version": m.Version, "num_rows": m.NumRows}
	var schema []any
	for _, e := range m.Schema {
		schema = append(schema, schemaElementJSON(e))
	}
	out["schema"] = schema
	lv := leaves(m.Schema)
	var rgs []any
	for _, rg := range m.RowGroups {
		g := map[string]any{"total_byte_size": rg.TotalByteSize, "num_rows": rg.NumRows}
		setPtr(g, "file_offset", rg.FileOffset)
		setPtr(g, "total_compressed_size", rg.TotalCompressedSize)
		setPtr(g, "ordinal", rg.Ordinal)
		if rg.SortingColumns != nil {
			var sc []any
			for _, s := range rg.SortingColumns {
				sc = append(sc, map[string]any{"column_idx": s.ColumnIdx, "descending": s.Descending, "nulls_first": s.NullsFirst})
			}
			g["sorting_columns"] = sc
		}
		cols := []any{}
		for i, c := range rg.Columns {
			var leaf *SchemaElement
			if i < len(lv) {
				leaf = lv[i]
			}
			cols = append(cols, columnChunkJSON(c, leaf))
		}
		g["columns"] = cols
		rgs = append(rgs, g)
	}
	out["row_groups"] = rgs
	if m.KeyValueMetadata != nil {
		out["key_value_metadata"] = keyValuesJSON(m.KeyValueMetadata)
	}
	setPtr(out, "created_by", m.CreatedBy)
	return out
}

func keyValuesJSON(kvs []KeyValue) []any {
	out := []any{}
	for _, kv := range kvs {
		o := map[string]any{"key": kv.Key}
		setPtr(o, "value", kv.Value)
		out = append(out, o)
	}
	return out
}

func setPtr[T any](m map[string]any, k string, p *T) {
	if p != nil {
		m[k] = *p
	}
}

func schemaElementJSON(e SchemaElement) map[string]any {
	o := map[string]any{"name": e.Name}
	if e.Type != nil {
		o["type"] = e.Type.String()
	}
	setPtr(o, "type_length", e.TypeLength)
	if e.RepetitionType != nil {
		o["repetition_type"] = e.RepetitionType.String()
	}
	setPtr(o, "num_children", e.NumChildren)
	if e.ConvertedType != nil {
		o["converted_type"] = e.ConvertedType.String()
	}
	setPtr(o, "scale", e.Scale)
	setPtr(o, "precision", e.Precision)
	setPtr(o, "field_id", e.FieldID)
	if lt := e.LogicalType; lt != nil {
		l := map[string]any{"type": lt.Kind.String()}
		switch lt.Kind {
		case LogicalDecimal:
			l["precision"], l["scale"] = lt.Precision, lt.Scale
		case LogicalTime, LogicalTimestamp:
			l["isAdjustedToUTC"], l["unit"] = lt.IsAdjustedToUTC, lt.Unit.String()
		case LogicalInteger:
			l["bitWidth"], l["isSigned"] = lt.BitWidth, lt.IsSigned
		case LogicalVariant:
			setPtr(l, "specification_version", lt.SpecificationVersion)
		case LogicalGeometry, LogicalGeography:
			setPtr(l, "crs", lt.CRS)
			if lt.Algorithm != nil {
				l["algorithm"] = lt.Algorithm.String()
			}
		}
		o["logical_type"] = l
	}
	return o
}

func columnChunkJSON(c ColumnChunk, leaf *SchemaElement) map[string]any {
	o := map[string]any{"file_offset": c.FileOffset}
	setPtr(o, "file_path", c.FilePath)
	setPtr(o, "offset_index_offset", c.OffsetIndexOffset)
	setPtr(o, "offset_index_length", c.OffsetIndexLength)
	setPtr(o, "column_index_offset", c.ColumnIndexOffset)
	setPtr(o, "column_index_length", c.ColumnIndexLength)
	md := c.MetaData
	if md == nil {
		return o
	}
	encs := []string{}
	for _, e := range md.Encodings {
		encs = append(encs, e.String())
	}
	m := map[string]any{"type": md.Type.String(), "encodings": encs, "path_in_schema": md.PathInSchema,
		"codec": md.Codec.String(), "num_values": md.NumValues,
		"total_uncompressed_size": md.TotalUncompressedSize,
		"total_compressed_size":   md.TotalCompressedSize, "data_page_offset": md.DataPageOffset}
	if md.KeyValueMetadata != nil {
		m["key_value_metadata"] = keyValuesJSON(md.KeyValueMetadata)
	}
	setPtr(m, "index_page_offset", md.IndexPageOffset)
	setPtr(m, "dictionary_page_offset", md.DictionaryPageOffset)
	setPtr(m, "bloom_filter_offset", md.BloomFilterOffset)
	setPtr(m, "bloom_filter_length", md.BloomFilterLength)
	if s := md.Statistics; s != nil {
		st := map[string]any{}
		setPtr(st, "null_count", s.NullCount)
		setPtr(st, "distinct_count", s.DistinctCount)
		setPtr(st, "is_max_value_exact", s.IsMaxValueExact)
		setPtr(st, "is_min_value_exact", s.IsMinValueExact)
		setPtr(st, "nan_count", s.NanCount)
		for k, v := range map[string][]byte{"max": s.Max, "min": s.Min, "max_value": s.MaxValue, "min_value": s.MinValue} {
			if v != nil {
				st[k] = statValue(leaf, v)
			}
		}
		m["statistics"] = st
	}
	if md.EncodingStats != nil {
		es := []any{}
		for _, s := range md.EncodingStats {
			es = append(es, map[string]any{"page_type": s.PageType.String(), "encoding": s.Encoding.String(), "count": s.Count})
		}
		m["encoding_stats"] = es
	}
	if s := md.SizeStatistics; s != nil {
		ss := map[string]any{}
		setPtr(ss, "unencoded_byte_array_data_bytes", s.UnencodedByteArrayDataBytes)
		setIf(ss, "repetition_level_histogram", s.RepetitionLevelHistogram)
		setIf(ss, "definition_level_histogram", s.DefinitionLevelHistogram)
		m["size_statistics"] = ss
	}
	if g := md.GeospatialStatistics; g != nil {
		gs := map[string]any{}
		if b := g.BBox; b != nil {
			bb := map[string]any{"xmin": b.Xmin, "xmax": b.Xmax, "ymin": b.Ymin, "ymax": b.Ymax}
			setPtr(bb, "zmin", b.Zmin)
			setPtr(bb, "zmax", b.Zmax)
			setPtr(bb, "mmin", b.Mmin)
			setPtr(bb, "mmax", b.Mmax)
			gs["bbox"] = bb
		}
		setIf(gs, "geospatial_types", g.GeospatialTypes)
		m["geospatial_statistics"] = gs
	}
	o["meta_data"] = m
	return o
}

// statValue decodes a PLAIN statistics value the way hyparquet shows it, for the physical
// types without a logical annotation (and strings); anything else is not compared.
func statValue(leaf *SchemaElement, b []byte) any {
	if leaf == nil || leaf.Type == nil {
		return skip
	}
	if lt := leaf.LogicalType; lt != nil && lt.Kind != LogicalString {
		return skip
	}
	if ct := leaf.ConvertedType; ct != nil && *ct != ConvertedUTF8 {
		return skip
	}
	switch *leaf.Type {
	case Boolean:
		if len(b) == 1 {
			return b[0] != 0
		}
	case Int32:
		if len(b) == 4 {
			return int32(binary.LittleEndian.Uint32(b))
		}
	case Int64:
		if len(b) == 8 {
			return float64(int64(binary.LittleEndian.Uint64(b))) // hyparquet compares 64-bit as float64
		}
	case Float:
		if len(b) == 4 {
			return jsonFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		}
	case Double:
		if len(b) == 8 {
			return jsonFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case ByteArray:
		if utf8.Valid(b) { // hyparquet's TextDecoder replaces invalid UTF-8 differently from Go
			return string(b)
		}
	}
	return skip
}

func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// normalize round-trips v through encoding/json so that numbers become float64 like the expectation.
func normalize(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// diff lists the differences between want and got, skipping values marked skip in got.
func diff(path string, want, got any) []string {
	if s, ok := got.(string); ok && s == skip {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want object, got %v", path, got)}
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out []string
		for _, k := range sorted {
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !wok:
				if s, ok := gv.(string); !ok || s != skip {
					out = append(out, fmt.Sprintf("%s.%s: unexpected %v", path, k, gv))
				}
			case !gok:
				out = append(out, fmt.Sprintf("%s.%s: missing, want %v", path, k, wv))
			default:
				out = append(out, diff(path+"."+k, wv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, w, got)}
		}
		var out []string
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, want, got)}
		}
		return nil
	}
}
