package prune

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
)

// The JSON wire form. One object per node, keyed by "op":
//
//	{"op":"and","args":[E, E, ...]}        {"op":"or","args":[...]}   (two or more args)
//	{"op":"not","args":[E]}
//	{"op":"=","col":"a.b","value":L}       also "!=" ("<>" accepted), "<", "<=", ">", ">="
//	{"op":"between","col":"x","low":L,"high":L}
//	{"op":"in","col":"x","values":[L, ...]}
//	{"op":"is null","col":"x"}             {"op":"is not null","col":"x"}
//	{"op":"like","col":"x","value":"abc%"} {"op":"ilike","col":"x","value":"%abc%"}
//	{"op":"st_intersects","col":"geometry","envelope":[xmin, ymin, xmax, ymax]}
//	                                       also "st_bbox" (the && operator), "st_within"
//
// Literals L:
//
//	JSON number            integer if it has no '.', 'e' or 'E', else float; the text is kept
//	                       exactly (no float64 rounding), e.g. 12345678901234567890, 1.005
//	JSON string            string (coerced to a date/timestamp/time by Bind for such columns)
//	true / false           boolean
//	{"date":"2024-01-01"}  date;   {"timestamp":"2026-10-01T09:00:00Z"}  timestamp
//	{"number":".5"}        any SQL numeric text that is not a valid JSON number
//	{"base64":"/w=="}      a string that is not valid UTF-8 (JSON strings cannot hold it)
//
// "col" and a LIKE "value" are JSON strings, or {"base64":…} when not valid UTF-8.
// Unknown fields are rejected so that typos ("column") fail loudly. "col" is the dotted path.

func (e *And) MarshalJSON() ([]byte, error) { return marshalArgs("and", e.Args) }
func (e *Or) MarshalJSON() ([]byte, error)  { return marshalArgs("or", e.Args) }
func (e *Not) MarshalJSON() ([]byte, error) { return marshalArgs("not", []Expr{e.Arg}) }
func (e *Cmp) MarshalJSON() ([]byte, error) {
	return marshalObj("op", string(e.Op), "col", jsonStr(e.Col), "value", e.Value)
}
func (e *Between) MarshalJSON() ([]byte, error) {
	return marshalObj("op", "between", "col", jsonStr(e.Col), "low", e.Low, "high", e.High)
}
func (e *In) MarshalJSON() ([]byte, error) {
	return marshalObj("op", "in", "col", jsonStr(e.Col), "values", e.Values)
}
func (e *IsNull) MarshalJSON() ([]byte, error) {
	op := "is null"
	if e.Not {
		op = "is not null"
	}
	return marshalObj("op", op, "col", jsonStr(e.Col))
}
func (e *Like) MarshalJSON() ([]byte, error) {
	op := "like"
	if e.Fold {
		op = "ilike"
	}
	return marshalObj("op", op, "col", jsonStr(e.Col), "value", jsonStr(e.Pattern))
}

// MarshalJSON writes the literal in the wire form described above.
func (l Literal) MarshalJSON() ([]byte, error) {
	switch l.Kind {
	case LitInt, LitFloat:
		if isJSONNumber(l.Text) {
			return []byte(l.Text), nil
		}
		return marshalObj("number", l.Text)
	case LitString:
		return marshalNoEscape(jsonStr(l.Text))
	case LitBool:
		return json.Marshal(l.Bool)
	case LitDate:
		return marshalObj("date", l.Text)
	case LitTimestamp:
		return marshalObj("timestamp", l.Text)
	}
	return nil, errf.Errorf("%w: literal of kind %d", ErrJSON, int(l.Kind))
}

func marshalArgs(op string, args []Expr) ([]byte, error) {
	return marshalObj("op", op, "args", args)
}

// marshalObj writes key/value pairs in the given order (encoding/json would sort map keys).
func marshalObj(kv ...any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalNoEscape(kv[i])
		v, err := marshalNoEscape(kv[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonStr returns s, or {"base64": s} when s is not valid UTF-8 (encoding/json would replace
// the invalid bytes with U+FFFD).
func jsonStr(s string) any {
	if utf8.ValidString(s) {
		return s
	}
	return map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))}
}

// decodeStr reads a JSON string or a {"base64": …} object.
func decodeStr(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 || m["base64"] == "" {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(m["base64"])
	return string(b), err == nil
}

// marshalNoEscape is json.Marshal without HTML escaping, so operators stay readable ("<="
// rather than "\u003c="). json.Marshal of an Expr re-escapes them; both forms are valid JSON
// and decode identically.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// isJSONNumber reports whether s matches JSON's number grammar.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	d := func() int {
		k := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - k
	}
	n := d()
	if n == 0 || n > 1 && s[i-n] == '0' {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if d() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if d() == 0 {
			return false
		}
	}
	return i == len(s)
}

type wireExpr struct {
	Op     string            `json:"op"`
	Args   []json.RawMessage `json:"args"`
	Col    json.RawMessage   `json:"col"`
	Value  json.RawMessage   `json:"value"`
	Low    json.RawMessage   `json:"low"`
	High   json.RawMessage   `json:"high"`
	Values []json.RawMessage `json:"values"`
	Env    []float64         `json:"envelope"`
}

// ParseJSON decodes the wire form into an Expr. Errors wrap ErrJSON (or ErrSyntax for a
// malformed DATE/TIMESTAMP literal) and name the node path, e.g. "args[1].value".
func ParseJSON(data []byte) (Expr, error) { return parseJSONAt(data, "", 0) }

func parseJSONAt(data []byte, where string, depth int) (Expr, error) {
	if depth >= maxDepth {
		return nil, jsonErr(where, "expression nested too deeply")
	}
	var w wireExpr
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, jsonErr(where, err.Error())
	}
	if dec.More() {
		return nil, jsonErr(where, "trailing data")
	}
	op := strings.ToLower(w.Op)
	at := func(f string) string {
		if where == "" {
			return f
		}
		return where + "." + f
	}
	switch op {
	case "and", "or", "not":
		if w.Col != nil || w.Value != nil || w.Low != nil || w.High != nil || w.Values != nil || w.Env != nil {
			return nil, jsonErr(where, op+" takes only args")
		}
		args := make([]Expr, len(w.Args))
		for i, a := range w.Args {
			e, err := parseJSONAt(a, errf.Sprintf("%s[%d]", at("args"), i), depth+1)
			if err != nil {
				return nil, err
			}
			args[i] = e
		}
		switch {
		case op == "not" && len(args) != 1:
			return nil, jsonErr(where, "not takes exactly one arg")
		case op == "not":
			return &Not{Arg: args[0]}, nil
		case len(args) == 0:
			return nil, jsonErr(where, op+" needs at least one arg")
		case len(args) == 1:
			return args[0], nil
		case op == "and":
			return &And{Args: args}, nil
		}
		return &Or{Args: args}, nil
	}
	if w.Col == nil {
		return nil, jsonErr(where, errf.Sprintf("op %q needs \"col\"", w.Op))
	}
	if w.Args != nil {
		return nil, jsonErr(where, errf.Sprintf("op %q takes no args", w.Op))
	}
	col, ok := decodeStr(w.Col)
	if !ok || col == "" {
		return nil, jsonErr(at("col"), "want a non-empty string or {\"base64\":…}")
	}
	if strings.HasPrefix(op, "st_") {
		if w.Value != nil || w.Low != nil || w.High != nil || w.Values != nil {
			return nil, jsonErr(where, errf.Sprintf("op %q takes only \"col\" and \"envelope\"", w.Op))
		}
		return parseSpatialJSON(op, col, w.Env, where)
	}
	if w.Env != nil {
		return nil, jsonErr(where, errf.Sprintf("op %q does not take \"envelope\"", w.Op))
	}
	only := func(fields ...string) error {
		present := map[string]bool{"value": w.Value != nil, "low": w.Low != nil, "high": w.High != nil, "values": w.Values != nil}
		for _, f := range fields {
			if !present[f] {
				return jsonErr(where, errf.Sprintf("op %q needs %q", w.Op, f))
			}
			delete(present, f)
		}
		for f, ok := range present {
			if ok {
				return jsonErr(where, errf.Sprintf("op %q does not take %q", w.Op, f))
			}
		}
		return nil
	}
	if c, ok := cmpOps[op]; ok {
		if err := only("value"); err != nil {
			return nil, err
		}
		v, err := parseJSONLit(w.Value, at("value"))
		if err != nil {
			return nil, err
		}
		return &Cmp{Op: c, Col: col, Value: v}, nil
	}
	switch op {
	case "between":
		if err := only("low", "high"); err != nil {
			return nil, err
		}
		lo, err := parseJSONLit(w.Low, at("low"))
		if err != nil {
			return nil, err
		}
		hi, err := parseJSONLit(w.High, at("high"))
		if err != nil {
			return nil, err
		}
		return &Between{Col: col, Low: lo, High: hi}, nil
	case "in":
		if err := only("values"); err != nil {
			return nil, err
		}
		if len(w.Values) == 0 {
			return nil, jsonErr(where, "in needs at least one value")
		}
		vals := make([]Literal, len(w.Values))
		for i, raw := range w.Values {
			v, err := parseJSONLit(raw, errf.Sprintf("%s[%d]", at("values"), i))
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return &In{Col: col, Values: vals}, nil
	case "is null", "is not null":
		if err := only(); err != nil {
			return nil, err
		}
		return &IsNull{Col: col, Not: op == "is not null"}, nil
	case "like", "ilike":
		if err := only("value"); err != nil {
			return nil, err
		}
		pat, ok := decodeStr(w.Value)
		if !ok {
			return nil, jsonErr(at("value"), op+" needs a string pattern")
		}
		return &Like{Col: col, Pattern: pat, Fold: op == "ilike"}, nil
	}
	return nil, jsonErr(where, errf.Sprintf("unknown op %q", w.Op))
}

func parseJSONLit(raw json.RawMessage, where string) (Literal, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Literal{}, jsonErr(where, "missing literal")
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Literal{}, jsonErr(where, err.Error())
		}
		return StrLit(s), nil

	case c == 't' || c == 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return Literal{}, jsonErr(where, err.Error())
		}
		return BoolLit(b), nil
	case c == '-' || c >= '0' && c <= '9':
		return checkNumber(string(raw), where)
	case c == '{':
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
			return Literal{}, jsonErr(where, `want {"date":…}, {"timestamp":…}, {"number":…} or {"base64":…}`)
		}
		for k, v := range m {
			switch k {
			case "date":
				if _, err := parseDateTime(v, true); err != nil {
					return Literal{}, jsonErr(where, errf.Sprintf("date %q: %v", v, err))
				}
				return DateLit(v), nil
			case "timestamp":
				if _, err := parseDateTime(v, false); err != nil {
					return Literal{}, jsonErr(where, errf.Sprintf("timestamp %q: %v", v, err))
				}
				return TimestampLit(v), nil
			case "number":
				return checkNumber(v, where)
			case "base64":
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					return Literal{}, jsonErr(where, "invalid base64 string")
				}
				return StrLit(string(b)), nil
			}
			return Literal{}, jsonErr(where, errf.Sprintf("unknown literal type %q", k))
		}
	}
	return Literal{}, jsonErr(where, errf.Sprintf("unsupported literal %s (null is only allowed through \"is null\")", quoteTok(string(raw))))
}

// checkNumber validates numeric text with the SQL lexer's rules (same length and exponent
// limits) and classifies it.
func checkNumber(s, where string) (Literal, error) {
	body := strings.TrimPrefix(s, "-")
	if body == "" || !(body[0] >= '0' && body[0] <= '9' || body[0] == '.') {
		return Literal{}, jsonErr(where, errf.Sprintf("invalid number %q", s))
	}
	end, err := lexNumber(body, 0)
	if err != nil || end != len(body) {
		return Literal{}, jsonErr(where, errf.Sprintf("invalid number %q", s))
	}
	return numLit(s), nil
}

func jsonErr(where, msg string) error {
	if where == "" {
		return errf.Errorf("%w: %s", ErrJSON, msg)
	}
	return errf.Errorf("%w at %s: %s", ErrJSON, where, msg)
}
