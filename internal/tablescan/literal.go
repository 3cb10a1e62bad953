package tablescan

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// literalOf is a literal that binds to v exactly on a column of type t (or of another width
// of its kind), for a value known in place of a column: a partition value or a filled one
// compared with another column. It is false when there is none: a double that is not a
// float32 value (a FLOAT column would round it), or a date or time out of the literal range.
func literalOf(t prune.ColumnType, v prune.Value) (prune.Literal, bool) {
	switch t.Kind {
	case prune.Bool:
		return prune.BoolLit(v.I != 0), true
	case prune.Int:
		return prune.IntLit(strconv.FormatInt(v.I, 10)), true
	case prune.Uint:
		return prune.IntLit(strconv.FormatUint(v.U, 10)), true
	case prune.Float:
		switch {
		case math.IsNaN(v.F):
			return prune.StrLit("NaN"), true
		case math.IsInf(v.F, 1):
			return prune.StrLit("Inf"), true
		case math.IsInf(v.F, -1):
			return prune.StrLit("-Inf"), true
		case float64(float32(v.F)) != v.F:
			return prune.Literal{}, false
		}
		return prune.FloatLit(strconv.FormatFloat(v.F, 'g', -1, 64)), true
	case prune.Bytes:
		return prune.StrLit(string(v.B)), true
	case prune.Decimal:
		digits := strconv.FormatInt(v.I, 10)
		if v.B != nil {
			digits = exactnum.FromTwos(v.B).String()
		}
		return prune.FloatLit(withScale(digits, int(t.Scale))), true
	case prune.Date:
		d := time.Unix(v.I*86400, 0).UTC()
		if d.Year() < 1 || d.Year() > 9999 {
			return prune.Literal{}, false
		}
		return prune.DateLit(d.Format("2006-01-02")), true
	case prune.Timestamp, prune.Time:
		per := t.Unit.PerSecond()
		if per == 0 {
			return prune.Literal{}, false
		}
		sec, frac := v.I/per, v.I%per
		if frac < 0 {
			sec, frac = sec-1, frac+per
		}
		d := time.Unix(sec, 0).UTC()
		if d.Year() < 1 || d.Year() > 9999 {
			return prune.Literal{}, false
		}
		text := d.Format("2006-01-02T15:04:05")
		if t.Kind == prune.Time {
			text = d.Format("15:04:05")
		}
		if digits := len(strconv.FormatInt(per, 10)) - 1; digits > 0 {
			f := strconv.FormatInt(frac, 10)
			text += "." + strings.Repeat("0", digits-len(f)) + f
		}
		if t.Kind == prune.Time {
			return prune.StrLit(text), true
		}
		if t.UTC {
			text += "Z"
		}
		return prune.TimestampLit(text), true
	}
	return prune.Literal{}, false
}

// withScale places the decimal point scale digits from the right of an integer's digits.
func withScale(digits string, scale int) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}
