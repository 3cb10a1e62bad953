package exactnum

import (
	"strconv"
	"strings"
)

// Rat is the rational Num/Den with Den > 0, not reduced: only its floor and whether it is an
// integer are read, and both are the same for every representation.
type Rat struct{ Num, Den Int }

// NewFrac returns num/den for den > 0.
func NewFrac(num, den Int) Rat { return Rat{num, den} }

// MulInt returns r*k.
func (r Rat) MulInt(k Int) Rat { return Rat{r.Num.Mul(k), r.Den} }

// QuoInt returns r/k for k > 0.
func (r Rat) QuoInt(k Int) Rat { return Rat{r.Num, r.Den.Mul(k)} }

// Floor returns the largest integer <= r and whether it equals r.
func (r Rat) Floor() (Int, bool) { return r.Num.DivFloor(r.Den) }

// ParseDecimal is big.Rat.SetString for the numeric literals the predicate parser, its JSON
// form and the table layer produce: [+-] digits [. digits] [(e|E) [+-] digits], at least one
// digit before the exponent, an exponent within ±maxExponent. Text outside that grammar is
// rejected (SetString accepts more: fractions, base prefixes, any exponent), which none of
// them emits: the parser's literals have at most three exponent digits, formatted floats at
// most ±324.
func ParseDecimal(s string) (Rat, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if digits == "" || !allDigits(digits) {
		return Rat{}, false
	}
	e := int64(0)
	if hasExp {
		body := strings.TrimPrefix(strings.TrimPrefix(exp, "+"), "-")
		if body == "" || !allDigits(body) || len(exp)-len(body) > 1 {
			return Rat{}, false
		}
		var err error
		if e, err = strconv.ParseInt(exp, 10, 32); err != nil || e > maxExponent || e < -maxExponent {
			return Rat{}, false
		}
	}
	e -= int64(len(frac))
	num := Int{}
	for len(digits) > 0 {
		n := min(len(digits), 9)
		v, _ := strconv.ParseUint(digits[:n], 10, 32)
		num = num.Mul(Pow10(n)).Add(NewUint(v))
		digits = digits[n:]
	}
	if neg {
		num = num.Neg()
	}
	if e >= 0 {
		return Rat{num.Mul(Pow10(int(e))), NewInt(1)}, true
	}
	return Rat{num, Pow10(int(-e))}, true
}

// maxExponent bounds the work and memory of one literal (10**maxExponent has ~33,000 bits).
const maxExponent = 10_000

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
