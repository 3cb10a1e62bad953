// Package rowfmt renders arrow-go record batches for people and pipelines: JSON Lines, CSV, an
// aligned text table, or the raw Arrow IPC stream. It is used by the pqscan CLI.
//
// Every value has one JSON rendering (AppendJSON); the text formats derive from it so that a
// value reads the same in every format. The rules are chosen to be exact and lossless where
// JSON allows it:
//   - 64-bit integers are printed from the integer, never through float64;
//   - decimals are exact strings built from the unscaled integer ("-12.345");
//   - NaN and ±Inf, which JSON cannot hold, are null;
//   - timestamps are RFC 3339 in UTC with as many fraction digits as the unit has (3 for ms,
//     6 for µs, 9 for ns), so nothing is rounded; naive timestamps are printed the same way;
//   - dates are YYYY-MM-DD and times HH:MM:SS[.fraction] (a negative time, out of spec,
//     gets a leading minus sign);
//   - binary and fixed-size binary are base64, except UUIDs (the arrow.uuid extension, either
//     registered or as field metadata) which are hyphenated hex;
//   - lists are arrays, structs objects, maps objects with their keys stringified (a
//     string key as itself, any other key, a struct or a list too, as its JSON text), so
//     that every map is an object whatever its key type;
//   - the arrow.json extension embeds the JSON text itself when it is valid JSON;
//   - the arrow.parquet.variant extension (unshredded) is the variant's JSON (internal/variant).
package rowfmt

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan/internal/variant"
)

// appendVariant renders an unshredded variant (a struct of metadata and value binaries) as
// its JSON; ok is false for any other shape or undecodable bytes, which then render as the
// plain struct.
func appendVariant(dst []byte, arr arrow.Array, i int) ([]byte, bool) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	st, ok := arr.(*array.Struct)
	if !ok {
		return dst, false
	}
	var meta, val []byte
	var haveMeta, haveVal bool
	typ := st.DataType().(*arrow.StructType)
	for k := 0; k < st.NumField(); k++ {
		b, ok := st.Field(k).(*array.Binary)
		if !ok || b.IsNull(i) {
			continue
		}
		switch typ.Field(k).Name {
		case "metadata":
			meta, haveMeta = b.Value(i), true
		case "value":
			val, haveVal = b.Value(i), true
		}
	}
	if !haveMeta || !haveVal {
		return dst, false
	}
	out, err := variant.AppendJSON(dst, meta, val)
	if err != nil {
		return dst, false
	}
	return out, true
}

// Extension names recognized through field metadata when the extension type is not
// registered with arrow-go (pqscan's IPC carries them as metadata on plain storage types).
const (
	extKey  = "ARROW:extension:name"
	extUUID = "arrow.uuid"
	extJSON = "arrow.json"
	// extVariant is the canonical Parquet Variant; pqscan writes it unshredded (a struct
	// of the metadata and the whole value), which renders as the variant's JSON.
	extVariant = "arrow.parquet.variant"
)

// extName returns the Arrow extension name of a field: the registered extension type's name,
// or the field metadata's.
func extName(f arrow.Field) string {
	if et, ok := f.Type.(arrow.ExtensionType); ok {
		return et.ExtensionName()
	}
	if v, ok := f.Metadata.GetValue(extKey); ok {
		return v
	}
	return ""
}

// AppendJSON appends the JSON rendering of value i of arr, whose field is f (the field supplies
// the extension name), to dst.
func AppendJSON(dst []byte, f arrow.Field, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch extName(f) {
	case extUUID:
		if b, ok := fixedBytes(arr, i); ok && len(b) == 16 {
			return appendUUID(append(dst, '"'), b)
		}
	case extJSON:
		if s, ok := stringValue(arr, i); ok && json.Valid([]byte(s)) {
			return appendCompactJSON(dst, s)
		}
	case extVariant:
		if out, ok := appendVariant(dst, arr, i); ok {
			return out
		}
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		st := ext.Storage()
		return AppendJSON(dst, arrow.Field{Name: f.Name, Type: st.DataType(), Nullable: f.Nullable}, st, i)
	}

	switch a := arr.(type) {
	case *array.Null:
		return append(dst, "null"...)
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10)
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10)
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32()), 32)
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64)
	case *array.String:
		return appendString(dst, a.Value(i))
	case *array.LargeString:
		return appendString(dst, a.Value(i))
	case *array.StringView:
		return appendString(dst, a.Value(i))
	case *array.Binary:
		return appendBase64(dst, a.Value(i))
	case *array.LargeBinary:
		return appendBase64(dst, a.Value(i))
	case *array.BinaryView:
		return appendBase64(dst, a.Value(i))
	case *array.FixedSizeBinary:
		return appendBase64(dst, a.Value(i))
	case *array.Date32:
		return appendQuotedTime(dst, time.Unix(int64(a.Value(i))*86400, 0).UTC(), "2006-01-02")
	case *array.Date64:
		return appendQuotedTime(dst, time.UnixMilli(int64(a.Value(i))).UTC(), "2006-01-02")
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return appendTimestamp(dst, int64(a.Value(i)), unit)
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return appendTimeOfDay(dst, int64(a.Value(i)), unit)
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return appendTimeOfDay(dst, int64(a.Value(i)), unit)
	case *array.Duration:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Decimal32:
		dt := a.DataType().(*arrow.Decimal32Type)
		return appendDecimal(dst, big.NewInt(int64(a.Value(i))), int(dt.Scale))
	case *array.Decimal64:
		dt := a.DataType().(*arrow.Decimal64Type)
		return appendDecimal(dst, big.NewInt(int64(a.Value(i))), int(dt.Scale))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return appendDecimal(dst, a.Value(i).BigInt(), int(dt.Scale))
	case *array.Decimal256:
		dt := a.DataType().(*arrow.Decimal256Type)
		return appendDecimal(dst, a.Value(i).BigInt(), int(dt.Scale))
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		dst = append(dst, `{"months":`...)
		dst = strconv.AppendInt(dst, int64(v.Months), 10)
		dst = append(dst, `,"days":`...)
		dst = strconv.AppendInt(dst, int64(v.Days), 10)
		dst = append(dst, `,"nanoseconds":`...)
		dst = strconv.AppendInt(dst, v.Nanoseconds, 10)
		return append(dst, '}')
	case *array.MonthInterval:
		dst = append(dst, `{"months":`...)
		dst = strconv.AppendInt(dst, int64(a.Value(i)), 10)
		return append(dst, '}')
	case *array.DayTimeInterval:
		v := a.Value(i)
		dst = append(dst, `{"days":`...)
		dst = strconv.AppendInt(dst, int64(v.Days), 10)
		dst = append(dst, `,"milliseconds":`...)
		dst = strconv.AppendInt(dst, int64(v.Milliseconds), 10)
		return append(dst, '}')
	case *array.Dictionary:
		vt := a.DataType().(*arrow.DictionaryType).ValueType
		return AppendJSON(dst, arrow.Field{Name: f.Name, Type: vt, Metadata: f.Metadata}, a.Dictionary(), a.GetValueIndex(i))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			cf := st.Field(k)
			dst = appendString(dst, cf.Name)
			dst = append(dst, ':')
			dst = AppendJSON(dst, cf, a.Field(k), i)
		}
		return append(dst, '}')
	case *array.Map:
		mt := a.DataType().(*arrow.MapType)
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '{')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = appendString(dst, KeyString(mt.KeyField(), keys, int(j)))
			dst = append(dst, ':')
			dst = AppendJSON(dst, mt.ItemField(), items, int(j))
		}
		return append(dst, '}')
	case array.ListLike:
		ef := elemField(a.DataType())
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, ef, vals, int(j))
		}
		return append(dst, ']')
	}
	// A type this package does not know: arrow-go's own string rendering, quoted.
	return appendString(dst, arr.ValueStr(i))
}

// KeyString renders a map key as an object key: strings as themselves, anything else as its
// JSON text (1 → "1", a UUID → its hyphenated form).
func KeyString(f arrow.Field, arr arrow.Array, i int) string {
	if s, ok := stringValue(arr, i); ok && extName(f) == "" {
		return s
	}
	b := AppendJSON(nil, f, arr, i)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	}
	return string(b)
}

// elemField is the element field of any list-like type.
func elemField(dt arrow.DataType) arrow.Field {
	if l, ok := dt.(arrow.ListLikeType); ok {
		return l.ElemField()
	}
	return arrow.Field{Name: "item", Type: arrow.Null}
}

// stringValue returns value i of a string array.
func stringValue(arr arrow.Array, i int) (string, bool) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.LargeString:
		return a.Value(i), true
	case *array.StringView:
		return a.Value(i), true
	}
	return "", false
}

// fixedBytes returns value i of a fixed-size binary array.
func fixedBytes(arr arrow.Array, i int) ([]byte, bool) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if a, ok := arr.(*array.FixedSizeBinary); ok {
		return a.Value(i), true
	}
	return nil, false
}

// appendFloat writes f like encoding/json does (shortest round-trip digits, exponent only for
// very large or small magnitudes); NaN and ±Inf, which JSON cannot represent, become null.
func appendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD as in encoding/json.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

func appendBase64(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendUUID writes the 8-4-4-4-12 lower-case form and the closing quote.
func appendUUID(dst, b []byte) []byte {
	var buf [36]byte
	hex.Encode(buf[0:8], b[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], b[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], b[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], b[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], b[10:16])
	dst = append(dst, buf[:]...)
	return append(dst, '"')
}

// appendCompactJSON embeds valid JSON text with insignificant whitespace removed, so that a
// JSON Lines row stays on one line.
func appendCompactJSON(dst []byte, s string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return appendString(dst, s)
	}
	return append(dst, b.Bytes()...)
}

func appendQuotedTime(dst []byte, t time.Time, layout string) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, layout)
	return append(dst, '"')
}

// unitDigits is the number of fraction digits of a time unit and the units per second.
func unitDigits(u arrow.TimeUnit) (digits int, perSec int64) {
	switch u {
	case arrow.Millisecond:
		return 3, 1e3
	case arrow.Microsecond:
		return 6, 1e6
	case arrow.Nanosecond:
		return 9, 1e9
	}
	return 0, 1
}

// splitUnits divides v units into whole seconds and a non-negative remainder (floor division,
// so that instants before 1970 keep a positive fraction).
func splitUnits(v, perSec int64) (sec, frac int64) {
	sec, frac = v/perSec, v%perSec
	if frac < 0 {
		sec--
		frac += perSec
	}
	return sec, frac
}

func appendFraction(dst []byte, frac int64, digits int) []byte {
	if digits == 0 {
		return dst
	}
	dst = append(dst, '.')
	s := strconv.FormatInt(frac, 10)
	for k := len(s); k < digits; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendTimestamp writes an RFC 3339 UTC timestamp with the unit's full precision.
func appendTimestamp(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	digits, perSec := unitDigits(unit)
	sec, frac := splitUnits(v, perSec)
	dst = append(dst, '"')
	dst = time.Unix(sec, 0).UTC().AppendFormat(dst, "2006-01-02T15:04:05")
	dst = appendFraction(dst, frac, digits)
	return append(dst, 'Z', '"')
}

// appendTimeOfDay writes HH:MM:SS with the unit's fraction digits. A negative time, outside
// the spec's range but written by Drill and DuckDB, is printed as a signed duration,
// "-HH:MM:SS.fff" of its magnitude (-1999 ms is "-00:00:01.999"), so the value reads back
// exactly; arrow-go would wrap it into the previous day.
func appendTimeOfDay(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	digits, perSec := unitDigits(unit)
	dst = append(dst, '"')
	mag := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		mag = -mag // two's complement: exact for math.MinInt64 too
	}
	sec, frac := int64(mag/uint64(perSec)), int64(mag%uint64(perSec))
	h, m, s := sec/3600, sec/60%60, sec%60
	dst = appendPadded(dst, h, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, s, 2)
	dst = appendFraction(dst, frac, digits)
	return append(dst, '"')
}

func appendPadded(dst []byte, v int64, width int) []byte {
	s := strconv.FormatInt(v, 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendDecimal writes unscaled × 10^-scale exactly, as a JSON string: decimals wider than
// float64's 53 bits would silently lose digits as JSON numbers in most consumers.
func appendDecimal(dst []byte, unscaled *big.Int, scale int) []byte {
	dst = append(dst, '"')
	dst = append(dst, DecimalString(unscaled, scale)...)
	return append(dst, '"')
}

// DecimalString formats unscaled × 10^-scale exactly ("-12.345", "0.05", "1200" for scale -2).
func DecimalString(unscaled *big.Int, scale int) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	var out []byte
	if neg {
		out = append(out, '-')
	}
	switch {
	case scale <= 0:
		out = append(out, digits...)
		for k := 0; k < -scale; k++ {
			out = append(out, '0')
		}
	case len(digits) > scale:
		out = append(out, digits[:len(digits)-scale]...)
		out = append(out, '.')
		out = append(out, digits[len(digits)-scale:]...)
	default:
		out = append(out, '0', '.')
		for k := len(digits); k < scale; k++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	}
	return string(out)
}
