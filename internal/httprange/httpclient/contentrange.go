package httpclient

import (
	"fmt"
	"strconv"
	"strings"
)

// contentRange is a parsed Content-Range header (RFC 9110 §14.4). first/last are inclusive;
// total is -1 for "*" (unknown complete length). An unsatisfied-range form "bytes */N" has
// unsatisfied set and first = last = -1.
type contentRange struct {
	first, last, total int64
	unsatisfied        bool
}

// parseContentRange parses "bytes a-b/total", "bytes a-b/*" or "bytes */total" strictly: the
// unit must be bytes, numbers plain decimal without signs, a ≤ b, and b < total when known.
// Leniency here would turn a misbehaving proxy into bytes at the wrong offsets.
func parseContentRange(s string) (contentRange, error) {
	bad := func() (contentRange, error) {
		return contentRange{}, fmt.Errorf("%w: cannot parse %q", ErrBadContentRange, s)
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad()
	}
	spec, totalStr, ok := strings.Cut(rest, "/")
	if !ok {
		return bad()
	}
	cr := contentRange{total: -1}
	if totalStr != "*" {
		n, ok := parseDecimal(totalStr)
		if !ok {
			return bad()
		}
		cr.total = n
	}
	if spec == "*" {
		if cr.total < 0 {
			return bad()
		}
		cr.first, cr.last, cr.unsatisfied = -1, -1, true
		return cr, nil
	}
	a, b, ok := strings.Cut(spec, "-")
	if !ok {
		return bad()
	}
	first, ok1 := parseDecimal(a)
	last, ok2 := parseDecimal(b)
	if !ok1 || !ok2 || first > last || (cr.total >= 0 && last >= cr.total) {
		return bad()
	}
	cr.first, cr.last = first, last
	return cr, nil
}

// parseDecimal accepts 1 to 18 ASCII digits (no sign, no spaces), so the value fits an int64.
func parseDecimal(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
