package optimize

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/decode/format"
)

// Advice is one finding of Advise: what stops a reader from skipping data, and what to do.
type Advice struct {
	// Kind is a stable identifier: stats-overlap, no-statistics, row-group-large,
	// row-group-small, no-page-index, dictionary-fallback, bloom-candidate, inexact-statistics,
	// deprecated-statistics.
	Kind string
	// Column is the dotted leaf path, "" for advice about the whole file.
	Column string
	// Message is one line for people.
	Message string
}

func (a Advice) String() string {
	if a.Column == "" {
		return a.Kind + ": " + a.Message
	}
	return a.Kind + " " + a.Column + ": " + a.Message
}

// Thresholds of Advise.
const (
	adviseMaxRowGroupBytes = 1 << 30
	adviseMaxRowGroupRows  = 10_000_000
	adviseMinRowGroupRows  = 10_000
	adviseManyRowGroups    = 8
	// adviseOverlap: a column cannot prune when row groups overlap on average this share of
	// the other row groups.
	adviseOverlap = 0.5
)

// Advise reads a footer and says what stops readers from skipping data. It needs no data
// pages; it reads column statistics, encoding stats, page index and bloom filter offsets.
// Findings come file-level first, then per column in schema order.
func Advise(meta *format.FileMetaData) []Advice {
	var out []Advice
	rgs := meta.RowGroups
	var large, small int
	for i, rg := range rgs {
		if rg.TotalByteSize > adviseMaxRowGroupBytes || rg.NumRows > adviseMaxRowGroupRows {
			large++
		}
		if i < len(rgs)-1 && rg.NumRows < adviseMinRowGroupRows {
			small++
		}
	}
	if large > 0 {
		out = append(out, Advice{Kind: "row-group-large", Message: fmt.Sprintf(
			"%d of %d row groups exceed 1 GiB uncompressed or 10M rows: a match anywhere fetches a lot; write smaller row groups (--row-group-size 1048576 or 128MB)", large, len(rgs))})
	}
	if len(rgs) >= adviseManyRowGroups && small*2 > len(rgs) {
		out = append(out, Advice{Kind: "row-group-small", Message: fmt.Sprintf(
			"%d of %d row groups hold under 10k rows: the footer grows and every column costs a request per row group; write larger row groups and rely on the page index", small, len(rgs))})
	}
	var chunks, noOffset, noColumn int
	for _, rg := range rgs {
		for _, cc := range rg.Columns {
			chunks++
			if cc.OffsetIndexOffset == nil {
				noOffset++
			}
			if cc.ColumnIndexOffset == nil {
				noColumn++
			}
		}
	}
	if noOffset > 0 || noColumn > 0 {
		out = append(out, Advice{Kind: "no-page-index", Message: fmt.Sprintf(
			"%d of %d column chunks lack an offset index and %d a column index: pages cannot be skipped inside a row group; rewrite with a page index (pqscan optimize)", noOffset, chunks, noColumn)})
	}
	leaves := leafElements(meta.Schema)
	sortedFirst := -1
	if len(rgs) > 0 && len(rgs[0].SortingColumns) > 0 {
		sortedFirst = int(rgs[0].SortingColumns[0].ColumnIdx)
	}
	ncol := 0
	if len(rgs) > 0 {
		ncol = len(rgs[0].Columns)
	}
	for c := range ncol {
		var el *format.SchemaElement
		if c < len(leaves) {
			el = &leaves[c]
		}
		typeOrder := c < len(meta.ColumnOrders) && meta.ColumnOrders[c].TypeDefinedOrder
		out = append(out, adviseColumn(meta, c, el, typeOrder, c == sortedFirst)...)
	}
	return out
}

// adviseColumn returns the findings of leaf column c.
func adviseColumn(meta *format.FileMetaData, c int, el *format.SchemaElement, typeOrder, sortedFirst bool) []Advice {
	var out []Advice
	var path string
	var physical format.Type
	var noStats, deprecated, inexact, fallback, bloom, dictionary int
	var bs []bounds
	var rowsWithBounds []int64
	var distinct int64 = -1
	var dictBytes, chunkBytes int64
	n := 0
	for _, rg := range meta.RowGroups {
		if c >= len(rg.Columns) || rg.Columns[c].MetaData == nil {
			continue
		}
		md := rg.Columns[c].MetaData
		n++
		path, physical = strings.Join(md.PathInSchema, "."), md.Type
		if md.BloomFilterOffset != nil {
			bloom++
		}
		if slices.Contains(md.Encodings, format.RLEDictionary) || slices.Contains(md.Encodings, format.PlainDictionary) {
			dictionary++
		}
		if d := md.DictionaryPageOffset; d != nil && *d > 0 && md.DataPageOffset > *d {
			dictBytes += md.DataPageOffset - *d
		}
		chunkBytes += md.TotalCompressedSize
		var dictPages, plainPages int32
		for _, es := range md.EncodingStats {
			if es.PageType != format.DataPage && es.PageType != format.DataPageV2 {
				continue
			}
			if es.Encoding == format.RLEDictionary || es.Encoding == format.PlainDictionary {
				dictPages += es.Count
			} else {
				plainPages += es.Count
			}
		}
		if dictPages > 0 && plainPages > 0 {
			fallback++
		}
		st := md.Statistics
		switch {
		case st == nil || (st.MinValue == nil && st.Min == nil):
			noStats++
		case st.MinValue == nil:
			deprecated++
		default:
			if (st.IsMinValueExact != nil && !*st.IsMinValueExact) || (st.IsMaxValueExact != nil && !*st.IsMaxValueExact) {
				inexact++
			}
			if st.MaxValue != nil && typeOrder {
				bs = append(bs, bounds{st.MinValue, st.MaxValue})
				rowsWithBounds = append(rowsWithBounds, rg.NumRows)
			}
		}
		if st != nil && st.DistinctCount != nil {
			distinct = max(distinct, 0) + *st.DistinctCount
		}
	}
	if n == 0 {
		return nil
	}
	add := func(kind, format string, args ...any) {
		out = append(out, Advice{Kind: kind, Column: path, Message: fmt.Sprintf(format, args...)})
	}
	if noStats > 0 {
		add("no-statistics", "%d of %d chunks have no min/max: row groups cannot be pruned on it; write statistics", noStats, n)
	}
	if deprecated > 0 {
		add("deprecated-statistics", "%d of %d chunks have only the deprecated min/max (signed order): readers ignore them where the order is not signed (strings, unsigned); rewrite with min_value/max_value", deprecated, n)
	}
	if inexact > 0 {
		add("inexact-statistics", "%d of %d chunks have truncated (inexact) min/max: they bound values and still prune, but cannot answer min/max queries", inexact, n)
	}
	if fallback > 0 {
		add("dictionary-fallback", "%d of %d chunks fell back from dictionary to PLAIN data pages: the dictionary grew past the writer's limit, so dictionary pruning is off and pages are larger; raise the dictionary page limit or add a bloom filter", fallback, n)
	}
	cmpFn := statCompare(physical, el)
	if cmpFn != nil && len(bs) >= 2 {
		// A single-valued column cannot prune and sorting does not help it.
		constant := true
		for _, b := range bs {
			constant = constant && bytes.Equal(b.min, bs[0].min) && bytes.Equal(b.max, bs[0].min)
		}
		var sum float64
		for i, a := range bs {
			k := 0
			for j, b := range bs {
				if i != j && cmpFn(a.min, b.max) <= 0 && cmpFn(b.min, a.max) <= 0 {
					k++
				}
			}
			sum += float64(k) / float64(len(bs)-1)
		}
		if mean := sum / float64(len(bs)); !constant && mean >= adviseOverlap {
			add("stats-overlap", "row group min/max ranges overlap: each overlaps %.0f%% of the other %d on average, so statistics rarely prune a filter on it; sort by it (pqscan optimize --sort-by %s) if queries filter on it", 100*mean, len(bs)-1, path)
		}
	}
	if bloom == 0 && !sortedFirst && bloomType(physical, el) {
		var why string
		switch {
		case distinct >= 0 && distinct*10 > meta.NumRows:
			why = fmt.Sprintf("distinct_count %d is over 10%% of %d rows", distinct, meta.NumRows)
		case fallback > 0:
			why = "its dictionary overflowed (many distinct values)"
		case chunkBytes > 0 && dictBytes*10 > chunkBytes*3:
			why = fmt.Sprintf("its dictionaries take %.0f%% of its bytes (many distinct values)", 100*float64(dictBytes)/float64(chunkBytes))
		case dictionary == 0 && wideIntRange(physical, bs, rowsWithBounds):
			why = "it is not dictionary-encoded and its min/max ranges allow over 10% distinct values"
		}
		if why != "" {
			add("bloom-candidate", "no bloom filter and %s: equality filters on it can only skip row groups with one (pqscan optimize --bloom %s)", why, path)
		}
	}
	return out
}

type bounds struct{ min, max []byte }

// wideIntRange reports whether every row group of a signed INT32/INT64 column has a value
// range wider than a tenth of its rows (a necessary condition for many distinct values).
func wideIntRange(t format.Type, bs []bounds, rows []int64) bool {
	if len(bs) == 0 || (t != format.Int32 && t != format.Int64) {
		return false
	}
	for i, b := range bs {
		var lo, hi int64
		switch {
		case t == format.Int32 && len(b.min) == 4 && len(b.max) == 4:
			lo, hi = int64(int32(binary.LittleEndian.Uint32(b.min))), int64(int32(binary.LittleEndian.Uint32(b.max)))
		case t == format.Int64 && len(b.min) == 8 && len(b.max) == 8:
			lo, hi = int64(binary.LittleEndian.Uint64(b.min)), int64(binary.LittleEndian.Uint64(b.max))
		default:
			return false
		}
		if w := uint64(hi - lo); w < uint64(rows[i]/10) || hi < lo {
			return false
		}
	}
	return true
}

// leafElements returns the schema's leaves in column order.
func leafElements(schema []format.SchemaElement) []format.SchemaElement {
	var out []format.SchemaElement
	for _, el := range schema[min(1, len(schema)):] {
		if el.NumChildren == nil || *el.NumChildren == 0 {
			if el.Type != nil {
				out = append(out, el)
			}
		}
	}
	return out
}

// bloomType reports whether equality filters are likely on a column of this type: integers
// that are not dates, times, timestamps or decimals; strings and binaries; not booleans and
// floats.
func bloomType(t format.Type, el *format.SchemaElement) bool {
	if el == nil {
		return false
	}
	if lt := el.LogicalType; lt != nil {
		switch lt.Kind {
		case format.LogicalDate, format.LogicalTime, format.LogicalTimestamp, format.LogicalDecimal, format.LogicalFloat16, format.LogicalJSON, format.LogicalBSON:
			return false
		}
	}
	if ct := el.ConvertedType; ct != nil {
		switch *ct {
		case format.ConvertedDate, format.ConvertedTimeMillis, format.ConvertedTimeMicros, format.ConvertedTimestampMillis, format.ConvertedTimestampMicros, format.ConvertedDecimal, format.ConvertedJSON, format.ConvertedBSON, format.ConvertedInterval:
			return false
		}
	}
	switch t {
	case format.Int32, format.Int64, format.ByteArray, format.FixedLenByteArray:
		return true
	}
	return false
}

// statCompare returns the comparison of PLAIN-encoded min_value/max_value under the type's
// defined order, or nil for types not analysed (booleans, INT96, decimals, float16, intervals).
func statCompare(t format.Type, el *format.SchemaElement) func(a, b []byte) int {
	if el == nil {
		return nil
	}
	unsigned := el.LogicalType != nil && el.LogicalType.Kind == format.LogicalInteger && !el.LogicalType.IsSigned
	if ct := el.ConvertedType; ct != nil {
		switch *ct {
		case format.ConvertedUint8, format.ConvertedUint16, format.ConvertedUint32, format.ConvertedUint64:
			unsigned = true
		case format.ConvertedDecimal, format.ConvertedInterval:
			return nil
		}
	}
	if lt := el.LogicalType; lt != nil && (lt.Kind == format.LogicalDecimal || lt.Kind == format.LogicalFloat16) {
		return nil
	}
	switch t {
	case format.Int32:
		return fixedCmp(4, func(a, b []byte) int {
			x, y := binary.LittleEndian.Uint32(a), binary.LittleEndian.Uint32(b)
			if unsigned {
				return cmp.Compare(x, y)
			}
			return cmp.Compare(int32(x), int32(y))
		})
	case format.Int64:
		return fixedCmp(8, func(a, b []byte) int {
			x, y := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
			if unsigned {
				return cmp.Compare(x, y)
			}
			return cmp.Compare(int64(x), int64(y))
		})
	case format.Float:
		return fixedCmp(4, func(a, b []byte) int {
			return cmp.Compare(math.Float32frombits(binary.LittleEndian.Uint32(a)), math.Float32frombits(binary.LittleEndian.Uint32(b)))
		})
	case format.Double:
		return fixedCmp(8, func(a, b []byte) int {
			return cmp.Compare(math.Float64frombits(binary.LittleEndian.Uint64(a)), math.Float64frombits(binary.LittleEndian.Uint64(b)))
		})
	case format.ByteArray, format.FixedLenByteArray:
		return bytes.Compare
	}
	return nil
}

// fixedCmp guards a comparison of fixed-size values: a value of the wrong size compares
// equal, which counts as an overlap (unknown means "cannot prune").
func fixedCmp(size int, f func(a, b []byte) int) func(a, b []byte) int {
	return func(a, b []byte) int {
		if len(a) != size || len(b) != size {
			return 0
		}
		return f(a, b)
	}
}
