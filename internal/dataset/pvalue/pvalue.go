// Package pvalue turns the string form of a value, as Hive paths, Delta partitionValues and
// Delta JSON statistics write it, into a typed prune.Value, and infers a type from a set of
// such strings.
//
// Reusing prune.Value (rather than a type of its own) is the point: the dataset layer hands
// partition values and file statistics to the same predicate evaluator (prune.Bound.MayMatch)
// that already proves row-group skipping, so files are skipped under identical rules.
//
// Accepted forms (Delta PROTOCOL.md "Partition Value Serialization", Spark's Hive layout):
//   - Bool: true/false, any case.
//   - Int: a base-10 int64 with optional sign.
//   - Float: strconv.ParseFloat forms, including NaN and ±Inf.
//   - Decimal: [sign]digits[.digits] with at most Scale fraction digits (more only if they
//     are zeros) and at most Precision digits in all; also the exponent form Spark writes for
//     small decimals (1.0E-5).
//   - Date: YYYY-MM-DD (years 0001..9999, proleptic Gregorian).
//   - Timestamp: "YYYY-MM-DD HH:MM:SS[.f…]" or with 'T', optionally followed by 'Z' or
//     ±HH:MM; up to 9 fraction digits. A value without a zone is read as written (UTC for
//     instant columns, as delta-kernel-rs does; the protocol notes Spark may have written the
//     writer's local time there, which no reader can recover).
//   - Bytes: the string's bytes unchanged.
package pvalue

import (
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// Parse converts s to a value of type t.
func Parse(s string, t prune.ColumnType) (prune.Value, error) {
	bad := func() (prune.Value, error) {
		return prune.Value{}, errf.Errorf("%w: %q as %s", ErrSyntax, s, t)
	}
	switch t.Kind {
	case prune.Bool:
		switch strings.ToLower(s) {
		case "true":
			return prune.BoolValue(true), nil
		case "false":
			return prune.BoolValue(false), nil
		}
		return bad()
	case prune.Int:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || !intFits(v, t) {
			return bad()
		}
		return prune.IntValue(v), nil
	case prune.Float:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) || strings.TrimSpace(s) != s || s == "" {
			return bad()
		}
		if t.Physical == prune.PhysFloat {
			v = float64(float32(v))
		}
		return prune.FloatValue(v), nil
	case prune.Bytes:
		return prune.StringValue(s), nil
	case prune.Date:
		d, ok := ParseDate(s)
		if !ok {
			return bad()
		}
		return prune.DateValue(d), nil
	case prune.Timestamp:
		v, ok := ParseTimestampUnit(s, t.Unit)
		if !ok {
			return bad()
		}
		return prune.TimestampValue(v), nil
	case prune.Decimal:
		u, ok := ParseDecimal(s, t.Precision, t.Scale)
		if !ok {
			return bad()
		}
		return prune.DecimalExact(u), nil
	}
	return prune.Value{}, errf.Errorf("%w: %s", ErrType, t)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// intFits checks an Int against a 32-bit physical type; narrower widths are the schema's
// business (prune.ColumnType does not record them).
func intFits(v int64, t prune.ColumnType) bool {
	if t.Physical == prune.Int32 {
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	return true
}

// ParseDate parses YYYY-MM-DD into days since 1970-01-01.
func ParseDate(s string) (int32, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return int32(daysFromCivil(y, m, d)), true
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is Howard Hinnant's algorithm: days since 1970-01-01 of a proleptic
// Gregorian date.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// ParseTimestamp parses a timestamp (see the package doc) into microseconds since the epoch;
// zoned reports whether the text carried a zone ('Z' or an offset).
func ParseTimestamp(s string) (micros int64, zoned bool, ok bool) {
	v, ok := ParseTimestampUnit(s, prune.Micro)
	return v, ok && hasZone(s), ok
}

func hasZone(s string) bool {
	if len(s) < 19 {
		return false
	}
	rest := s[19:]
	return strings.HasSuffix(rest, "Z") || strings.ContainsAny(rest, "+-")
}

// ParseTimestampUnit parses s into units u since the epoch, rounding sub-unit digits toward
// negative infinity. It reports !ok for malformed text and for values outside int64 in that
// unit (years after 2262 in nanoseconds).
func ParseTimestampUnit(s string, u prune.Unit) (int64, bool) {
	secs, nanos, ok := parseTimestamp(s)
	per := PerSecond(u)
	if !ok || per == 0 || secs > math.MaxInt64/per-1 || secs < math.MinInt64/per+1 {
		return 0, false
	}
	return secs*per + nanos/(1e9/per), true
}

// parseTimestamp returns whole seconds since the epoch (UTC) and the nanoseconds within.
func parseTimestamp(s string) (secs, nanos int64, ok bool) {
	if len(s) < 19 || s[10] != ' ' && s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, 0, false
	}
	days, ok := ParseDate(s[:10])
	if !ok {
		return 0, 0, false
	}
	hh, ok1 := digits(s[11:13])
	mm, ok2 := digits(s[14:16])
	ss, ok3 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 59 {
		return 0, 0, false
	}
	rest := s[19:]
	if strings.HasPrefix(rest, ".") {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		f := rest[1:j]
		if len(f) == 0 || len(f) > 9 {
			return 0, 0, false
		}
		v, _ := digits(f)
		nanos = int64(v)
		for k := len(f); k < 9; k++ {
			nanos *= 10
		}
		rest = rest[j:]
	}
	var off int64 // seconds east of UTC
	switch {
	case rest == "" || rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, 0, false
		}
		off = int64(oh*3600 + om*60)
		if rest[0] == '-' {
			off = -off
		}
	default:
		return 0, 0, false
	}
	return int64(days)*86400 + int64(hh*3600+mm*60+ss) - off, nanos, true
}

// PerSecond returns how many units make one second (0 for an invalid unit).
func PerSecond(u prune.Unit) int64 {
	switch u {
	case prune.Second:
		return 1
	case prune.Milli:
		return 1e3
	case prune.Micro:
		return 1e6
	case prune.Nano:
		return 1e9
	}
	return 0
}

// ParseDecimal parses a decimal string into its unscaled integer at scale, checking that it
// has at most precision digits (precision <= 0 skips the check).
func ParseDecimal(s string, precision, scale int32) (exactnum.Int, bool) {
	if scale < 0 || scale > 76 || s == "" {
		return exactnum.Int{}, false
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -100 || e > 100 {
			return exactnum.Int{}, false
		}
		mant, exp = s[:i], e
	}
	neg := false
	switch {
	case strings.HasPrefix(mant, "-"):
		neg, mant = true, mant[1:]
	case strings.HasPrefix(mant, "+"):
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return exactnum.Int{}, false
	}
	all := intPart + frac
	for i := 0; i < len(all); i++ {
		if all[i] < '0' || all[i] > '9' {
			return exactnum.Int{}, false
		}
	}
	// value = all * 10^(exp - len(frac)); unscaled = value * 10^scale.
	shift := exp - len(frac) + int(scale)
	if shift < 0 {
		if -shift > len(all) {
			all = strings.Repeat("0", -shift-len(all)) + all
		}
		cut := all[len(all)+shift:]
		if strings.Trim(cut, "0") != "" {
			return exactnum.Int{}, false // more fraction digits than the scale holds
		}
		all = all[:len(all)+shift]
	} else {
		all += strings.Repeat("0", shift)
	}
	r, ok := exactnum.ParseDecimal("0" + all) // digits only: an integer
	if !ok {
		return exactnum.Int{}, false
	}
	u := r.Num
	if precision > 0 && len(u.String()) > int(precision) && u.Sign() != 0 {
		return exactnum.Int{}, false
	}
	if neg {
		u = u.Neg()
	}
	return u, true
}

// Infer returns the narrowest type every non-null value parses as, in the order Int (int64),
// Date, Timestamp (microseconds, UTC only if every value carries a zone), else Bytes. This is
// DuckDB's hive_types_autocast set (BIGINT, DATE, TIMESTAMP, VARCHAR), the oracle the dataset
// tests compare with; Polars also infers floats and booleans, which a string comparison
// keeps exact instead (a "2021.0" folder stays "2021.0"). An integer with a leading zero
// ("007") or a '+' keeps the column a string: inference must not lose text. A mix of dates
// and timestamps, or of zoned and zone-less timestamps, is a string column (no common type
// represents both without inventing a time of day or a zone).
func Infer(values []string) prune.ColumnType {
	isInt, isDate, isTS, zoned, anyZoned := true, true, true, true, false
	n := 0
	for _, v := range values {
		n++
		if isInt && !canonicalInt(v) {
			isInt = false
		}
		if isDate {
			if _, ok := ParseDate(v); !ok {
				isDate = false
			}
		}
		if isTS {
			_, z, ok := ParseTimestamp(v)
			isTS, zoned, anyZoned = ok, zoned && z, anyZoned || z
		}
		if !isInt && !isDate && !isTS {
			break
		}
	}
	switch {
	case n == 0:
		return prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}
	case isInt:
		return prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}
	case isDate:
		return prune.ColumnType{Kind: prune.Date, Physical: prune.Int32}
	case isTS && zoned == anyZoned: // all with a zone (instants) or none (wall times)
		return prune.ColumnType{Kind: prune.Timestamp, Unit: prune.Micro, UTC: zoned, Physical: prune.Int64}
	}
	return prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}
}

// canonicalInt reports whether s is an int64 written without leading zeros or '+'.
func canonicalInt(s string) bool {
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		return false
	}
	d := strings.TrimPrefix(s, "-")
	return d != "" && s[0] != '+' && (d == "0" || d[0] != '0') && s != "-0"
}
