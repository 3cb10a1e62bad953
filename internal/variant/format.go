//go:build !pqscan_lean

package variant

import (
	"math"
	"math/bits"
	"strconv"
)

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// appendDouble renders f as DuckDB (yyjson) does: the shortest digits that round-trip, in
// fixed notation with at least one fractional digit ("1.0", "0.000001") when 1e-7 < |f| <
// 1e21 (the thresholds of JavaScript's Number#toString), otherwise in exponent notation
// without a plus sign or leading zeros ("1e21", "1.5e-7"). DuckDB writes NaN and the
// infinities as bare NaN, Infinity and -Infinity, which JSON does not have; they become the
// strings "NaN", "Infinity" and "-Infinity" here so that the output stays valid JSON.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±xx
	i := len(e) - 1
	for e[i] != 'e' {
		i--
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	if exp < -6 || exp >= 21 {
		dst = append(dst, e[:i+1]...)
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// appendDecimal renders the 128-bit two's complement unscaled value hi:lo with scale digits
// after the point, as DuckDB does: "123.45", "-0.050", "5" (scale 0).
func appendDecimal(dst []byte, hi, lo uint64, scale int) []byte {
	neg := int64(hi) < 0
	if neg {
		lo, hi = -lo, ^hi
		if lo == 0 {
			hi++
		}
	}
	// The magnitude's digits, in chunks of 19 (3 cover 128 bits), least significant first.
	var chunks [3]uint64
	nc := 0
	for hi != 0 || lo != 0 {
		var r uint64
		hi, r = bits.Div64(0, hi, 1e19)
		lo, r = bits.Div64(r, lo, 1e19)
		chunks[nc] = r
		nc++
	}
	var buf [64]byte
	b := buf[:0]
	if nc == 0 {
		b = append(b, '0')
	} else {
		b = strconv.AppendUint(b, chunks[nc-1], 10)
		for i := nc - 2; i >= 0; i-- {
			b = pad(b, chunks[i], 19)
		}
	}
	digits := b
	if neg {
		dst = append(dst, '-')
	}
	if len(digits) <= scale {
		dst = append(dst, '0')
		if scale > 0 {
			dst = append(dst, '.')
			for i := len(digits); i < scale; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, digits...)
		}
		return dst
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	if scale > 0 {
		dst = append(dst, '.')
		dst = append(dst, digits[len(digits)-scale:]...)
	}
	return dst
}

// DuckDB's special date and timestamp values, rendered as it renders them.
const (
	dateInfinity = math.MaxInt32
	tsInfinity   = math.MaxInt64
)

// civil converts days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// days_from_civil inverse), exact over the whole int32 range.
func civil(days int64) (y int64, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendDate renders days as DuckDB does: "2024-01-02", "0045-03-15 (BC)" for year -44,
// "infinity" and "-infinity" for its special values.
func appendDate(dst []byte, days int64) []byte {
	switch days {
	case dateInfinity:
		return append(dst, "infinity"...)
	case -dateInfinity:
		return append(dst, "-infinity"...)
	}
	dst, bc := appendYMD(dst, days)
	if bc {
		dst = append(dst, " (BC)"...)
	}
	return dst
}

func appendYMD(dst []byte, days int64) ([]byte, bool) {
	y, m, d := civil(days)
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	dst = pad(dst, uint64(y), 4)
	dst = append(dst, '-')
	dst = pad(dst, uint64(m), 2)
	dst = append(dst, '-')
	return pad(dst, uint64(d), 2), bc
}

// pad appends v in decimal, zero-padded to width digits.
func pad(dst []byte, v uint64, width int) []byte {
	var buf [24]byte
	s := strconv.AppendUint(buf[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendTimestamp renders a timestamp in microseconds (or nanoseconds) since the epoch as
// DuckDB does: "2024-01-02 03:04:05.5", trailing zeros of the fraction dropped, " (BC)"
// after the date when the year is not positive, and "+00" when the value is adjusted to UTC
// (DuckDB prints TIMESTAMPTZ in the session time zone; pqscan has none and uses UTC).
func appendTimestamp(dst []byte, v int64, nanos, utc bool) []byte {
	switch v {
	case tsInfinity:
		return append(dst, "infinity"...)
	case -tsInfinity:
		return append(dst, "-infinity"...)
	}
	perDay, digits := int64(86400_000000), 6
	if nanos {
		perDay, digits = 86400_000000_000, 9
	}
	days, rem := v/perDay, v%perDay
	if rem < 0 {
		days--
		rem += perDay
	}
	dst, bc := appendYMD(dst, days)
	if bc {
		dst = append(dst, " (BC)"...)
	}
	dst = append(dst, ' ')
	dst = appendClock(dst, rem, digits)
	if utc {
		dst = append(dst, "+00"...)
	}
	return dst
}

// appendClock renders a time of day given in units of 10^-digits seconds as HH:MM:SS with the
// fraction's trailing zeros dropped.
func appendClock(dst []byte, v int64, digits int) []byte {
	unit := int64(1)
	for i := 0; i < digits; i++ {
		unit *= 10
	}
	sec, frac := v/unit, v%unit
	dst = pad(dst, uint64(sec/3600), 2)
	dst = append(dst, ':')
	dst = pad(dst, uint64(sec/60%60), 2)
	dst = append(dst, ':')
	dst = pad(dst, uint64(sec%60), 2)
	if frac == 0 {
		return dst
	}
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	dst = append(dst, '.')
	return pad(dst, uint64(frac), digits)
}
