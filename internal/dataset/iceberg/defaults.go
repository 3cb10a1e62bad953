package iceberg

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/prune"
)

// Default values (spec § Default values, Appendix D "JSON single-value serialization"): a
// column added with an initial-default reads as that value in every row of a file written
// without it. The session fills it as it fills an identity partition value
// (tablescan.File.Fill), after that value and after the name mapping, before null.

// Defaults are the initial-default values of the top-level columns of fields that have one,
// by column name. A default on a nested field, or on a column of a type the fill cannot
// write (uuid, fixed, nested), is refused: such files would read null where the table says
// otherwise.
func Defaults(fields []StructField) (map[string]prune.Value, error) {
	var out map[string]prune.Value
	for _, f := range fields {
		if err := nestedDefaults(f.Type, f.Name, 0); err != nil {
			return nil, err
		}
		if isNull(f.Initial) {
			continue
		}
		if _, ok := PruneType(f.Type.Prim); !ok {
			return nil, errf.Errorf("%w: column %q has an initial-default of type %s", ErrUnsupportedFeature, f.Name, typeString(f.Type))
		}
		v, err := ParseDefault(f.Type.Prim, f.Initial)
		if err != nil {
			return nil, errf.Errorf("column %q: %w", f.Name, err)
		}
		if out == nil {
			out = map[string]prune.Value{}
		}
		out[f.Name] = v
	}
	return out, nil
}

// nestedDefaults refuses an initial-default on a field nested in t.
func nestedDefaults(t Type, name string, depth int) error {
	if depth > 64 {
		return errf.Errorf("%w: column %q nests deeper than 64", ErrMalformed, name)
	}
	for _, f := range t.Fields {
		if !isNull(f.Initial) {
			return errf.Errorf("%w: the nested field %q of %q has an initial-default", ErrUnsupportedFeature, f.Name, name)
		}
		if err := nestedDefaults(f.Type, name, depth+1); err != nil {
			return err
		}
	}
	for _, k := range []*Type{t.Element, t.Key, t.Value} {
		if k != nil {
			if err := nestedDefaults(*k, name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func isNull(raw []byte) bool {
	s := bytes.TrimSpace(raw)
	return len(s) == 0 || string(s) == "null"
}

func typeString(t Type) string {
	if t.Prim != "" {
		return t.Prim
	}
	return t.Kind
}

// ParseDefault reads a value of primitive type p in the JSON single-value serialization:
// booleans and numbers as JSON values (a float also as "NaN", "Infinity", "-Infinity"),
// decimals, dates, times and timestamps as strings in their ISO forms, strings as they are,
// binary as hexadecimal.
func ParseDefault(p string, raw []byte) (prune.Value, error) {
	t, ok := PruneType(p)
	if !ok {
		return prune.Value{}, errf.Errorf("%w: a default of type %s", ErrUnsupportedFeature, p)
	}
	// The value is one JSON scalar: a string (its text), else a boolean or number (as written).
	// Trimmed as before (bytes.TrimSpace: Unicode spaces too, which JSON does not skip).
	jv, jerr := jsonv.Parse(bytes.TrimSpace(raw))
	if jerr != nil {
		return prune.Value{}, errf.Errorf("%w: default %s for type %s: not a JSON value", ErrMalformed, raw, p)
	}
	text, str := string(jv.Raw), jv.Kind == jsonv.String
	if str {
		text = jv.S
	}
	want := true // the kinds written as JSON strings
	switch t.Kind {
	case prune.Bool, prune.Int:
		want = false
	case prune.Float: // a number, or the names of the values JSON has no number for
		want = text == "NaN" || text == "Infinity" || text == "-Infinity"
	}
	var v prune.Value
	var err error
	switch {
	case str != want:
		err = ErrMalformed
	case p == "binary":
		b, ok := decodeHex(text)
		if !ok {
			err = ErrMalformed
		}
		v = prune.BytesValue(b)
	case t.Kind == prune.Time:
		v.Kind = prune.Time
		if v.I, ok = parseTime(text); !ok {
			err = ErrMalformed
		}
	case t.Kind == prune.Timestamp && t.UTC != zoned(text):
		err = ErrMalformed // timestamptz values carry a zone offset; timestamp values none
	default:
		v, err = pvalue.Parse(text, t)
	}
	if err != nil || t.Kind == prune.Float && !str && math.IsInf(v.F, 0) {
		return prune.Value{}, errf.Errorf("%w: default %s does not read as type %s", ErrMalformed, raw, p)
	}
	return v, nil
}

// zoned says whether an ISO date-time ends in a zone ("Z", "+00:00").
func zoned(s string) bool {
	i := strings.LastIndexAny(s, "+-")
	return strings.HasSuffix(s, "Z") || i > 10 && len(s)-i == 6 && s[len(s)-3] == ':'
}

// parseTime reads HH:MM[:SS[.f…]] (at most 6 fraction digits) as microseconds since midnight.
func parseTime(s string) (int64, bool) {
	clock, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(clock, ":")
	if len(parts) < 2 || len(parts) > 3 || hasFrac && (len(parts) != 3 || frac == "" || len(frac) > 6) {
		return 0, false
	}
	var hms [3]int64
	for i, part := range parts {
		if len(part) != 2 {
			return 0, false
		}
		n, err := strconv.ParseUint(part, 10, 8)
		if err != nil {
			return 0, false
		}
		hms[i] = int64(n)
	}
	if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return 0, false
	}
	var us int64
	if hasFrac {
		n, err := strconv.ParseUint(frac, 10, 32)
		if err != nil {
			return 0, false
		}
		us = int64(n)
		for range 6 - len(frac) {
			us *= 10
		}
	}
	return ((hms[0]*60+hms[1])*60+hms[2])*1e6 + us, true
}

// decodeHex is hex.DecodeString (either case) without its error value: encoding/hex's
// InvalidByteError formats through fmt, which the wasm module does not link otherwise.
func decodeHex(s string) ([]byte, bool) {
	if len(s)%2 != 0 {
		return nil, false
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		b[i] = hi<<4 | lo
	}
	return b, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
