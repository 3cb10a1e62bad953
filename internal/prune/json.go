package prune

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// The JSON wire form. One object per node, keyed by "op":
//
//	{"op":"and","args":[E, E, ...]}        {"op":"or","args":[...]}   (two or more args)
//	{"op":"not","args":[E]}
//	{"op":"=","col":"a.b","value":L}       also "!=" ("<>" accepted), "<", "<=", ">", ">="
//	{"op":"<","col":"a","value":{"col":"b"}}   two columns compared (ColCmp)
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
// Unknown members are rejected so that typos ("column") fail loudly; names match exactly
// ("Op" is unknown). "col" is the dotted path.

func (e *And) MarshalJSON() ([]byte, error) { return marshalArgs("and", e.Args) }
func (e *Or) MarshalJSON() ([]byte, error)  { return marshalArgs("or", e.Args) }
func (e *Not) MarshalJSON() ([]byte, error) { return marshalArgs("not", []Expr{e.Arg}) }
func (e *Cmp) MarshalJSON() ([]byte, error) {
	w := opObj(string(e.Op), e.Col)
	w.key("value")
	return w.lit(e.Value)
}
func (e *ColCmp) MarshalJSON() ([]byte, error) {
	w := opObj(string(e.Op), e.Left)
	w.key("value")
	w.b = append(w.b, `{"col":`...)
	w.str(e.Right)
	return append(w.end(), '}'), nil
}
func (e *Between) MarshalJSON() ([]byte, error) {
	w := opObj("between", e.Col)
	w.key("low")
	if err := w.literal(e.Low); err != nil {
		return nil, err
	}
	w.key("high")
	return w.lit(e.High)
}
func (e *In) MarshalJSON() ([]byte, error) {
	w := opObj("in", e.Col)
	w.key("values")
	if e.Values == nil {
		w.b = append(w.b, "null"...)
		return w.end(), nil
	}
	w.b = append(w.b, '[')
	for i, v := range e.Values {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if err := w.literal(v); err != nil {
			return nil, err
		}
	}
	return append(w.b, "]}"...), nil
}
func (e *IsNull) MarshalJSON() ([]byte, error) {
	op := "is null"
	if e.Not {
		op = "is not null"
	}
	w := opObj(op, e.Col)
	return w.end(), nil
}
func (e *Like) MarshalJSON() ([]byte, error) {
	op := "like"
	if e.Fold {
		op = "ilike"
	}
	w := opObj(op, e.Col)
	w.key("value")
	w.str(e.Pattern)
	return w.end(), nil
}

// MarshalJSON writes the literal in the wire form described above.
func (l Literal) MarshalJSON() ([]byte, error) {
	var w jsonOut
	if err := w.literal(l); err != nil {
		return nil, err
	}
	return w.b, nil
}

// jsonOut writes the wire form byte for byte as an encoding/json Encoder without HTML
// escaping writes it, members in the order given (Marshal of a map would sort them), so that
// operators stay readable ("<=" rather than "\u003c="). json.Marshal of an Expr re-escapes
// them; both forms are valid JSON and decode identically.
type jsonOut struct{ b []byte }

// opObj starts {"op":op,"col":col.
func opObj(op, col string) *jsonOut {
	w := &jsonOut{b: []byte(`{"op":`)}
	w.b = jsonw.StringNoHTML(w.b, op)
	w.key("col")
	w.str(col)
	return w
}

// key writes ,"k": (k is one of the form's member names, which need no escaping).
func (w *jsonOut) key(k string) { w.b = append(append(append(w.b, `,"`...), k...), `":`...) }

func (w *jsonOut) end() []byte { return append(w.b, '}') }

// lit writes l and closes the object.
func (w *jsonOut) lit(l Literal) ([]byte, error) {
	if err := w.literal(l); err != nil {
		return nil, err
	}
	return w.end(), nil
}

// str writes s, or {"base64": s} when s is not valid UTF-8 (encoding/json would replace the
// invalid bytes with U+FFFD).
func (w *jsonOut) str(s string) {
	if utf8.ValidString(s) {
		w.b = jsonw.StringNoHTML(w.b, s)
		return
	}
	w.obj1("base64", base64.StdEncoding.EncodeToString([]byte(s)))
}

// obj1 writes {"k":v}.
func (w *jsonOut) obj1(k, v string) {
	w.b = append(append(append(w.b, `{"`...), k...), `":`...)
	w.b = append(jsonw.StringNoHTML(w.b, v), '}')
}

func (w *jsonOut) literal(l Literal) error {
	switch l.Kind {
	case LitInt, LitFloat:
		if isJSONNumber(l.Text) {
			w.b = append(w.b, l.Text...)
		} else {
			w.obj1("number", l.Text)
		}
	case LitString:
		w.str(l.Text)
	case LitBool:
		w.b = strconv.AppendBool(w.b, l.Bool)
	case LitDate:
		w.obj1("date", l.Text)
	case LitTimestamp:
		w.obj1("timestamp", l.Text)
	default:
		return errf.Errorf("%w: literal of kind %d", ErrJSON, int(l.Kind))
	}
	return nil
}

func marshalArgs(op string, args []Expr) ([]byte, error) {
	w := &jsonOut{b: []byte(`{"op":`)}
	w.b = jsonw.StringNoHTML(w.b, op)
	w.key("args")
	if args == nil {
		return append(w.b, "null}"...), nil
	}
	w.b = append(w.b, '[')
	for i, a := range args {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if a == nil {
			w.b = append(w.b, "null"...)
			continue
		}
		js, err := a.MarshalJSON()
		if err != nil {
			return nil, err
		}
		w.b = append(w.b, js...)
	}
	return append(w.b, "]}"...), nil
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

// wireExpr is one node's members; a nil *jsonv.Value is an absent member. "col", "value",
// "low" and "high" are present even when null (null then fails where a value is needed);
// a null "args", "values" or "envelope" is absent, as encoding/json decodes a null slice.
type wireExpr struct {
	Op                    string
	Args, Values          []jsonv.Value
	HasArgs, HasValues    bool
	Col, Value, Low, High *jsonv.Value
	Env                   []float64
}

// readWire reads v's members. Unknown members are errors, so that typos ("column") fail
// loudly; a repeated member's last value counts, as in encoding/json.
func readWire(v *jsonv.Value) (wireExpr, string) {
	var w wireExpr
	switch v.Kind {
	case jsonv.Null:
		return w, ""
	case jsonv.Object:
	default:
		return w, "want an object, got " + v.Kind.String()
	}
	for i, k := range v.Keys {
		m := &v.Vals[i]
		null := m.Kind == jsonv.Null
		switch k {
		case "op":
			if !null && m.Kind != jsonv.String {
				return w, "op: want a string, got " + m.Kind.String()
			}
			if !null {
				w.Op = m.S
			}
		case "args", "values":
			if !null && m.Kind != jsonv.Array {
				return w, k + ": want an array, got " + m.Kind.String()
			}
			if k == "args" {
				w.Args, w.HasArgs = m.Elems, !null
			} else {
				w.Values, w.HasValues = m.Elems, !null
			}
		case "col":
			w.Col = m
		case "value":
			w.Value = m
		case "low":
			w.Low = m
		case "high":
			w.High = m
		case "envelope":
			w.Env = nil
			if null {
				continue
			}
			if m.Kind != jsonv.Array {
				return w, "envelope: want an array of numbers, got " + m.Kind.String()
			}
			w.Env = make([]float64, len(m.Elems))
			for j := range m.Elems {
				e := &m.Elems[j]
				if e.Kind == jsonv.Null {
					continue // a null element leaves 0, as encoding/json decodes a []float64
				}
				f, ok := e.Float64()
				if !ok {
					return w, "envelope: want an array of numbers, got " + e.Kind.String()
				}
				w.Env[j] = f
			}
		default:
			return w, "unknown member " + strconv.Quote(k)
		}
	}
	return w, ""
}

// ParseJSON decodes the wire form into an Expr. Errors wrap ErrJSON (or ErrSyntax for a
// malformed DATE/TIMESTAMP literal) and name the node path, e.g. "args[1].value".
func ParseJSON(data []byte) (Expr, error) {
	v, err := jsonv.Parse(data)
	if err != nil {
		return nil, jsonErr("", err.Error())
	}
	return parseJSONAt(&v, "", 0)
}

func parseJSONAt(v *jsonv.Value, where string, depth int) (Expr, error) {
	if depth >= maxDepth {
		return nil, jsonErr(where, "expression nested too deeply")
	}
	w, msg := readWire(v)
	if msg != "" {
		return nil, jsonErr(where, msg)
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
		if w.Col != nil || w.Value != nil || w.Low != nil || w.High != nil || w.HasValues || w.Env != nil {
			return nil, jsonErr(where, op+" takes only args")
		}
		args := make([]Expr, len(w.Args))
		for i := range w.Args {
			e, err := parseJSONAt(&w.Args[i], at("args")+"["+strconv.Itoa(i)+"]", depth+1)
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
	if w.HasArgs {
		return nil, jsonErr(where, errf.Sprintf("op %q takes no args", w.Op))
	}
	col, ok := decodeStr(w.Col)
	if !ok || col == "" {
		return nil, jsonErr(at("col"), "want a non-empty string or {\"base64\":…}")
	}
	if strings.HasPrefix(op, "st_") {
		if w.Value != nil || w.Low != nil || w.High != nil || w.HasValues {
			return nil, jsonErr(where, errf.Sprintf("op %q takes only \"col\" and \"envelope\"", w.Op))
		}
		return parseSpatialJSON(op, col, w.Env, where)
	}
	if w.Env != nil {
		return nil, jsonErr(where, errf.Sprintf("op %q does not take \"envelope\"", w.Op))
	}
	only := func(fields ...string) error {
		present := map[string]bool{"value": w.Value != nil, "low": w.Low != nil, "high": w.High != nil, "values": w.HasValues}
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
		if ref := w.Value; ref.Kind == jsonv.Object && colRef(ref) {
			right, ok := decodeStr(ref.Get("col"))
			if !ok || right == "" {
				return nil, jsonErr(at("value.col"), "want a non-empty string or {\"base64\":…}")
			}
			return &ColCmp{Op: c, Left: col, Right: right}, nil
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
		for i := range w.Values {
			v, err := parseJSONLit(&w.Values[i], at("values")+"["+strconv.Itoa(i)+"]")
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

// strObj reads v as an object of strings as encoding/json decodes a map[string]string: a
// null value reads as "", a repeated key's last value counts; ok is false for anything else.
func strObj(v *jsonv.Value) (map[string]string, bool) {
	if v.Kind != jsonv.Object {
		return nil, false
	}
	m := make(map[string]string, len(v.Keys))
	for i, k := range v.Keys {
		switch e := &v.Vals[i]; e.Kind {
		case jsonv.String, jsonv.Null:
			m[k] = e.S
		default:
			return nil, false
		}
	}
	return m, true
}

// decodeStr reads a string, null (as ""), or a {"base64": …} object.
func decodeStr(v *jsonv.Value) (string, bool) {
	switch v.Kind {
	case jsonv.String, jsonv.Null:
		return v.S, true
	}
	m, ok := strObj(v)
	if !ok || len(m) != 1 || m["base64"] == "" {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(m["base64"])
	return string(b), err == nil
}

func parseJSONLit(v *jsonv.Value, where string) (Literal, error) {
	switch v.Kind {
	case jsonv.String:
		return StrLit(v.S), nil
	case jsonv.Bool:
		return BoolLit(v.B), nil
	case jsonv.Number:
		return checkNumber(string(v.Raw), where)
	case jsonv.Object:
		m, ok := strObj(v)
		if !ok || len(m) != 1 {
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
	return Literal{}, jsonErr(where, errf.Sprintf("unsupported literal %s (null is only allowed through \"is null\")", quoteTok(string(v.Raw))))
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

// colRef reports whether an object is a column reference, {"col": …}: its only member is
// "col" (the literal forms' members are "date", "timestamp", "number" and "base64").
func colRef(v *jsonv.Value) bool {
	for _, k := range v.Keys {
		if k != "col" {
			return false
		}
	}
	return len(v.Keys) > 0
}
