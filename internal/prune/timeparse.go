package prune

import (
	"errors"
	"time"

	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// dateTime is a parsed ISO 8601 date or date-time literal, kept exact: whole seconds of the
// wall clock since 1970-01-01T00:00:00 plus a decimal fraction, and the zone offset if one
// was written.
type dateTime struct {
	wallSec   int64 // wall-clock seconds since the epoch, ignoring the zone
	fracNum   int64 // fraction of a second = fracNum / 10^fracDigits
	fracDig   int
	hasTime   bool
	hasZone   bool
	offsetSec int64 // east of UTC; subtract from wall time to get UTC
}

var errDateFormat = errors.New("invalid date/time (want YYYY-MM-DD[Thh:mm[:ss[.fff]]][Z|±hh:mm])")

// parseDateTime parses YYYY-MM-DD, optionally followed (unless dateOnly) by 'T' or ' ' and
// hh:mm[:ss[.fraction]] and a zone Z, ±hh, ±hhmm or ±hh:mm. Fields are range-checked
// (no month 13, no February 30, no hour 24); the fraction has at most 18 digits.
func parseDateTime(s string, dateOnly bool) (dateTime, error) {
	var dt dateTime
	y, ok1 := digitsAt(s, 0, 4)
	m, ok2 := digitsAt(s, 5, 2)
	d, ok3 := digitsAt(s, 8, 2)
	if len(s) < 10 || !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' {
		return dt, errDateFormat
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return dt, errors.New("date out of range")
	}
	dt.wallSec = time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC).Unix()
	rest := s[10:]
	if rest == "" {
		return dt, nil
	}
	if dateOnly || (rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ') {
		return dt, errDateFormat
	}
	sec, fn, fd, n, err := parseClock(rest[1:])
	if err != nil {
		return dt, err
	}
	dt.hasTime = true
	dt.wallSec += sec
	dt.fracNum, dt.fracDig = fn, fd
	rest = rest[1+n:]
	switch {
	case rest == "":
		return dt, nil
	case rest == "Z" || rest == "z":
		dt.hasZone = true
		return dt, nil
	case rest[0] == '+' || rest[0] == '-':
		var hh, mm int64
		var ok, ok2 bool
		z := rest[1:]
		switch len(z) {
		case 2:
			hh, ok = digitsAt(z, 0, 2)
		case 4:
			hh, ok = digitsAt(z, 0, 2)
			mm, ok2 = digitsAt(z, 2, 2)
			ok = ok && ok2
		case 5:
			hh, ok = digitsAt(z, 0, 2)
			mm, ok2 = digitsAt(z, 3, 2)
			ok = ok && ok2 && z[2] == ':'
		}
		if !ok || hh > 23 || mm > 59 {
			return dt, errors.New("invalid zone offset")
		}
		dt.hasZone = true
		dt.offsetSec = hh*3600 + mm*60
		if rest[0] == '-' {
			dt.offsetSec = -dt.offsetSec
		}
		return dt, nil
	}
	return dt, errDateFormat
}

// parseClock parses hh:mm[:ss[.fraction]] at the start of s and returns seconds of the day,
// the fraction and the number of bytes consumed.
func parseClock(s string) (sec, fracNum int64, fracDig, n int, err error) {
	hh, ok1 := digitsAt(s, 0, 2)
	mm, ok2 := digitsAt(s, 3, 2)
	if len(s) < 5 || !ok1 || !ok2 || s[2] != ':' {
		return 0, 0, 0, 0, errors.New("invalid time of day (want hh:mm[:ss[.fff]])")
	}
	var ss int64
	n = 5
	if len(s) > 5 && s[5] == ':' {
		var ok bool
		if ss, ok = digitsAt(s, 6, 2); !ok {
			return 0, 0, 0, 0, errors.New("invalid seconds")
		}
		n = 8
		if len(s) > 8 && s[8] == '.' {
			n = 9
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				if fracDig == 18 {
					return 0, 0, 0, 0, errors.New("more than 18 fractional digits")
				}
				fracNum = fracNum*10 + int64(s[n]-'0')
				fracDig++
				n++
			}
			if fracDig == 0 {
				return 0, 0, 0, 0, errors.New("empty fraction")
			}
		}
	}
	if hh > 23 || mm > 59 || ss > 59 {
		return 0, 0, 0, 0, errors.New("time of day out of range")
	}
	return hh*3600 + mm*60 + ss, fracNum, fracDig, n, nil
}

// parseTimeOfDay parses a whole TIME literal hh:mm[:ss[.fraction]] as exact seconds.
func parseTimeOfDay(s string) (exactnum.Rat, error) {
	sec, fn, fd, n, err := parseClock(s)
	if err != nil {
		return exactnum.Rat{}, err
	}
	if n != len(s) {
		return exactnum.Rat{}, errors.New("invalid time of day (want hh:mm[:ss[.fff]])")
	}
	return secondsRat(sec, fn, fd), nil
}

// seconds returns the literal as exact seconds since the epoch: the UTC instant when utc is
// set and a zone was written, the wall time otherwise.
func (dt dateTime) seconds(utc bool) exactnum.Rat {
	sec := dt.wallSec
	if utc && dt.hasZone {
		sec -= dt.offsetSec
	}
	return secondsRat(sec, dt.fracNum, dt.fracDig)
}

func secondsRat(sec, fracNum int64, fracDig int) exactnum.Rat {
	den := exactnum.Pow10(fracDig)
	return exactnum.NewFrac(exactnum.NewInt(sec).Mul(den).Add(exactnum.NewInt(fracNum)), den)
}

// digitsAt reads exactly n ASCII digits at s[i:].
func digitsAt(s string, i, n int) (int64, bool) {
	if i < 0 || i+n > len(s) {
		return 0, false
	}
	var v int64
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func daysIn(y, m int64) int64 {
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
