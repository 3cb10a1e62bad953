package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/rowfmt"
	"github.com/pqscan/pqscan/internal/scan"
)

// inspect prints the footer: the file, then per row group and column chunk its size, codec,
// encodings, statistics (decoded by the column's type) and which indexes exist.
func inspect(ctx context.Context, w io.Writer, f *pqscan.File) error {
	m := scan.Thrift(f.Metadata())
	if m == nil {
		return fmt.Errorf("inspect: the engine gave no Thrift footer (inspect uses the native engine)")
	}
	createdBy := "(unknown)"
	if m.CreatedBy != nil {
		createdBy = *m.CreatedBy
	}
	fmt.Fprintf(w, "file: %d bytes, %d rows, %d row groups, format version %d\n", f.Size(), m.NumRows, len(m.RowGroups), m.Version)
	fmt.Fprintf(w, "created_by: %s\n", createdBy)
	if err := printWorkarounds(ctx, w, f); err != nil { // workarounds.go
		return err
	}
	for _, kv := range m.KeyValueMetadata {
		v := "(no value)"
		if kv.Value != nil {
			v = oneLine(*kv.Value)
			if len(v) > 80 {
				v = v[:77] + "..."
			}
		}
		fmt.Fprintf(w, "key_value: %s = %s\n", kv.Key, v)
	}
	printSpatial(w, m) // inspect_geo.go
	leaves := leafElements(m.Schema)
	for i, rg := range m.RowGroups {
		fmt.Fprintf(w, "row group %d: %d rows, %d bytes uncompressed\n", i, rg.NumRows, rg.TotalByteSize)
		for j, cc := range rg.Columns {
			md := cc.MetaData // never nil: Open refuses encrypted columns and chunks without metadata
			var el *format.SchemaElement
			if j < len(leaves) {
				el = leaves[j]
			}
			encs := make([]string, len(md.Encodings))
			for k, e := range md.Encodings {
				encs[k] = e.String()
			}
			fmt.Fprintf(w, "  %s: %s%s, %d values, %d bytes (%d uncompressed), %s, encodings %s\n",
				strings.Join(md.PathInSchema, "."), md.Type, annotation(el), md.NumValues,
				md.TotalCompressedSize, md.TotalUncompressedSize, md.Codec, strings.Join(encs, ","))
			if s := md.Statistics; s != nil {
				fmt.Fprintf(w, "    stats: %s\n", statsLine(s, el, md.Type))
			}
			if g := geoStatsLine(md); g != "" {
				fmt.Fprintf(w, "    geospatial bbox: %s\n", g)
			}
			fmt.Fprintf(w, "    dictionary page: %s, column index: %s, offset index: %s, bloom filter: %s\n",
				yes(md.DictionaryPageOffset != nil), yes(cc.ColumnIndexOffset != nil), yes(cc.OffsetIndexOffset != nil), yes(md.BloomFilterOffset != nil))
		}
	}
	printAdvice(w, m) // advice.go
	return nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// leafElements returns the schema's leaf elements in column-chunk order (a depth-first walk of
// the flat element list, children counted by num_children).
func leafElements(schema []format.SchemaElement) []*format.SchemaElement {
	var out []*format.SchemaElement
	i := 1
	var walk func(n int)
	walk = func(n int) {
		for k := 0; k < n && i < len(schema); k++ {
			e := &schema[i]
			i++
			if e.NumChildren != nil && *e.NumChildren > 0 {
				walk(int(*e.NumChildren))
			} else {
				out = append(out, e)
			}
		}
	}
	if len(schema) > 0 && schema[0].NumChildren != nil {
		walk(int(*schema[0].NumChildren))
	}
	return out
}

// annotation names the logical (or legacy converted) type of a leaf, e.g. " DECIMAL(9,2)".
func annotation(el *format.SchemaElement) string {
	if el == nil {
		return ""
	}
	if lt := el.LogicalType; lt != nil {
		switch lt.Kind {
		case format.LogicalDecimal:
			return fmt.Sprintf(" DECIMAL(%d,%d)", lt.Precision, lt.Scale)
		case format.LogicalTimestamp, format.LogicalTime:
			return fmt.Sprintf(" %s(%s, utc=%v)", lt.Kind, lt.Unit, lt.IsAdjustedToUTC)
		case format.LogicalInteger:
			return fmt.Sprintf(" INT(%d, signed=%v)", lt.BitWidth, lt.IsSigned)
		}
		return " " + lt.Kind.String()
	}
	if el.ConvertedType != nil {
		if *el.ConvertedType == format.ConvertedDecimal && el.Precision != nil && el.Scale != nil {
			return fmt.Sprintf(" DECIMAL(%d,%d)", *el.Precision, *el.Scale)
		}
		return " " + el.ConvertedType.String()
	}
	return ""
}

// statsLine renders min/max (the current min_value/max_value, else the deprecated min/max),
// null and distinct counts.
func statsLine(s *format.Statistics, el *format.SchemaElement, t format.Type) string {
	var parts []string
	min, max, legacy := s.MinValue, s.MaxValue, ""
	if min == nil && max == nil {
		min, max, legacy = s.Min, s.Max, " (deprecated min/max)"
	}
	if min != nil {
		parts = append(parts, "min "+statValue(min, el, t))
	}
	if max != nil {
		parts = append(parts, "max "+statValue(max, el, t))
	}
	if s.NullCount != nil {
		parts = append(parts, fmt.Sprintf("nulls %d", *s.NullCount))
	}
	if s.DistinctCount != nil {
		parts = append(parts, fmt.Sprintf("distinct %d", *s.DistinctCount))
	}
	if s.NanCount != nil {
		parts = append(parts, fmt.Sprintf("NaNs %d", *s.NanCount))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ") + legacy
}

// statValue decodes a PLAIN-encoded statistics value for display by the column's physical and
// logical type; bytes that do not fit the type are shown as hex.
func statValue(b []byte, el *format.SchemaElement, t format.Type) string {
	lk, ct := format.LogicalKind(-1), format.ConvertedType(-1)
	var lt *format.LogicalType
	if el != nil {
		if lt = el.LogicalType; lt != nil {
			lk = lt.Kind
		}
		if el.ConvertedType != nil {
			ct = *el.ConvertedType
		}
	}
	scale := -1
	if lk == format.LogicalDecimal {
		scale = int(lt.Scale)
	} else if ct == format.ConvertedDecimal && el.Scale != nil {
		scale = int(*el.Scale)
	}
	hexed := "0x" + hex.EncodeToString(b)
	switch t {
	case format.Boolean:
		if len(b) == 1 {
			return strconv.FormatBool(b[0] != 0)
		}
	case format.Int32:
		if len(b) != 4 {
			break
		}
		v := int32(binary.LittleEndian.Uint32(b))
		switch {
		case scale >= 0:
			return rowfmt.DecimalString(big.NewInt(int64(v)), scale)
		case lk == format.LogicalDate || ct == format.ConvertedDate:
			return time.Unix(int64(v)*86400, 0).UTC().Format("2006-01-02")
		case lk == format.LogicalInteger && !lt.IsSigned, ct >= format.ConvertedUint8 && ct <= format.ConvertedUint32:
			return strconv.FormatUint(uint64(uint32(v)), 10)
		}
		return strconv.FormatInt(int64(v), 10)
	case format.Int64:
		if len(b) != 8 {
			break
		}
		v := int64(binary.LittleEndian.Uint64(b))
		switch {
		case scale >= 0:
			return rowfmt.DecimalString(big.NewInt(v), scale)
		case lk == format.LogicalTimestamp:
			return timestamp(v, lt.Unit)
		case ct == format.ConvertedTimestampMillis:
			return timestamp(v, format.Millis)
		case ct == format.ConvertedTimestampMicros:
			return timestamp(v, format.Micros)
		case lk == format.LogicalInteger && !lt.IsSigned, ct == format.ConvertedUint64:
			return strconv.FormatUint(uint64(v), 10)
		}
		return strconv.FormatInt(v, 10)
	case format.Float:
		if len(b) == 4 {
			return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 'g', -1, 32)
		}
	case format.Double:
		if len(b) == 8 {
			return strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64)
		}
	case format.Int96:
		if len(b) == 12 {
			nanos := int64(binary.LittleEndian.Uint64(b))
			days := int64(int32(binary.LittleEndian.Uint32(b[8:])))
			return time.Unix((days-2440588)*86400, nanos).UTC().Format(time.RFC3339Nano)
		}
	case format.ByteArray, format.FixedLenByteArray:
		switch {
		case scale >= 0 && len(b) > 0:
			v := new(big.Int).SetBytes(b)
			if b[0]&0x80 != 0 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			return rowfmt.DecimalString(v, scale)
		case lk == format.LogicalUUID && len(b) == 16:
			h := hex.EncodeToString(b)
			return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		case lk == format.LogicalFloat16 && len(b) == 2:
			return strconv.FormatFloat(float64(float16.FromBits(binary.LittleEndian.Uint16(b)).Float32()), 'g', -1, 32)
		case utf8.Valid(b):
			s := strconv.Quote(string(b))
			if len(s) > 60 {
				s = s[:57] + `..."`
			}
			return s
		}
	}
	return hexed
}

func timestamp(v int64, u format.TimeUnit) string {
	var t time.Time
	switch u {
	case format.Millis:
		t = time.UnixMilli(v)
	case format.Nanos:
		t = time.Unix(0, v)
	default:
		t = time.UnixMicro(v)
	}
	return t.UTC().Format(time.RFC3339Nano)
}
