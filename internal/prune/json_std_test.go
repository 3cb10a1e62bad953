package prune

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// The encoding/json reader and writer of the wire form as they were before jsonv and jsonw,
// kept as the oracle of FuzzParseJSONStd and FuzzValueJSONStd.

// stdParseSpatialJSON is parseSpatialJSON: its input was already a []float64.
func stdParseSpatialJSON(op, col string, env []float64, where string) (Expr, error) {
	return parseSpatialJSON(op, col, env, where)
}

type stdWireExpr struct {
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
func stdParseJSON(data []byte) (Expr, error) { return stdParseJSONAt(data, "", 0) }

func stdParseJSONAt(data []byte, where string, depth int) (Expr, error) {
	if depth >= maxDepth {
		return nil, jsonErr(where, "expression nested too deeply")
	}
	var w stdWireExpr
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
			e, err := stdParseJSONAt(a, errf.Sprintf("%s[%d]", at("args"), i), depth+1)
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
	col, ok := stdDecodeStr(w.Col)
	if !ok || col == "" {
		return nil, jsonErr(at("col"), "want a non-empty string or {\"base64\":…}")
	}
	if strings.HasPrefix(op, "st_") {
		if w.Value != nil || w.Low != nil || w.High != nil || w.Values != nil {
			return nil, jsonErr(where, errf.Sprintf("op %q takes only \"col\" and \"envelope\"", w.Op))
		}
		return stdParseSpatialJSON(op, col, w.Env, where)
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
		var ref map[string]json.RawMessage
		if json.Unmarshal(w.Value, &ref) == nil && len(ref) == 1 && ref["col"] != nil {
			right, ok := stdDecodeStr(ref["col"])
			if !ok || right == "" {
				return nil, jsonErr(at("value.col"), "want a non-empty string or {\"base64\":…}")
			}
			return &ColCmp{Op: c, Left: col, Right: right}, nil
		}
		v, err := stdParseJSONLit(w.Value, at("value"))
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
		lo, err := stdParseJSONLit(w.Low, at("low"))
		if err != nil {
			return nil, err
		}
		hi, err := stdParseJSONLit(w.High, at("high"))
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
			v, err := stdParseJSONLit(raw, errf.Sprintf("%s[%d]", at("values"), i))
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
		pat, ok := stdDecodeStr(w.Value)
		if !ok {
			return nil, jsonErr(at("value"), op+" needs a string pattern")
		}
		return &Like{Col: col, Pattern: pat, Fold: op == "ilike"}, nil
	}
	return nil, jsonErr(where, errf.Sprintf("unknown op %q", w.Op))
}

func stdParseJSONLit(raw json.RawMessage, where string) (Literal, error) {
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

// stdExpr marshals an Expr tree as the encoding/json writer did.
type stdExpr struct{ e Expr }

func (s stdExpr) MarshalJSON() ([]byte, error) {
	switch e := s.e.(type) {
	case *And:
		return stdMarshalArgs("and", e.Args)
	case *Or:
		return stdMarshalArgs("or", e.Args)
	case *Not:
		return stdMarshalArgs("not", []Expr{e.Arg})
	case *Cmp:
		return stdMarshalObj("op", string(e.Op), "col", stdJSONStr(e.Col), "value", stdLit(e.Value))
	case *ColCmp:
		right, err := stdMarshalObj("col", stdJSONStr(e.Right))
		if err != nil {
			return nil, err
		}
		return stdMarshalObj("op", string(e.Op), "col", stdJSONStr(e.Left), "value", json.RawMessage(right))
	case *Between:
		return stdMarshalObj("op", "between", "col", stdJSONStr(e.Col), "low", stdLit(e.Low), "high", stdLit(e.High))
	case *In:
		var vals []stdLit
		if e.Values != nil {
			vals = make([]stdLit, len(e.Values))
			for i, v := range e.Values {
				vals[i] = stdLit(v)
			}
		}
		return stdMarshalObj("op", "in", "col", stdJSONStr(e.Col), "values", vals)
	case *IsNull:
		op := "is null"
		if e.Not {
			op = "is not null"
		}
		return stdMarshalObj("op", op, "col", stdJSONStr(e.Col))
	case *Like:
		op := "like"
		if e.Fold {
			op = "ilike"
		}
		return stdMarshalObj("op", op, "col", stdJSONStr(e.Col), "value", stdJSONStr(e.Pattern))
	case *Spatial:
		return stdMarshalObj("op", "st_"+e.Rel, "col", stdJSONStr(e.Col), "envelope", []float64{e.Env.XMin, e.Env.YMin, e.Env.XMax, e.Env.YMax})
	}
	return nil, errf.Errorf("%w: unknown node", ErrJSON)
}

type stdLit Literal

func (l stdLit) MarshalJSON() ([]byte, error) {
	switch l.Kind {
	case LitInt, LitFloat:
		if isJSONNumber(l.Text) {
			return []byte(l.Text), nil
		}
		return stdMarshalObj("number", l.Text)
	case LitString:
		return stdMarshalNoEscape(stdJSONStr(l.Text))
	case LitBool:
		return json.Marshal(l.Bool)
	case LitDate:
		return stdMarshalObj("date", l.Text)
	case LitTimestamp:
		return stdMarshalObj("timestamp", l.Text)
	}
	return nil, errf.Errorf("%w: literal of kind %d", ErrJSON, int(l.Kind))
}

func stdMarshalArgs(op string, args []Expr) ([]byte, error) {
	var a []any
	if args != nil {
		a = make([]any, len(args))
		for i, e := range args {
			if e != nil {
				a[i] = stdExpr{e}
			}
		}
	}
	return stdMarshalObj("op", op, "args", a)
}

// marshalObj writes key/value pairs in the given order (encoding/json would sort map keys).
func stdMarshalObj(kv ...any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := stdMarshalNoEscape(kv[i])
		v, err := stdMarshalNoEscape(kv[i+1])
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
func stdJSONStr(s string) any {
	if utf8.ValidString(s) {
		return s
	}
	return map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))}
}

// decodeStr reads a JSON string or a {"base64": …} object.
func stdDecodeStr(raw json.RawMessage) (string, bool) {
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
func stdMarshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// stdFloat is the jsonFloat of the encoding/json Value form.
type stdFloat float64

func (f stdFloat) MarshalJSON() ([]byte, error) {
	if x := float64(f); math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte(`"` + strconv.FormatFloat(x, 'g', -1, 64) + `"`), nil
	}
	return json.Marshal(float64(f))
}

func (f *stdFloat) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !math.IsNaN(x) && !math.IsInf(x, 0) {
			return errf.Errorf("%w: %s is not a float", ErrJSON, b)
		}
		*f = stdFloat(x)
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}

type stdValue struct {
	Kind Kind
	I    int64
	U    uint64
	F    stdFloat
	B    []byte
}

func stdMarshalValue(v Value) ([]byte, error) {
	return json.Marshal(stdValue{v.Kind, v.I, v.U, stdFloat(v.F), v.B})
}

func stdUnmarshalValue(b []byte) (Value, error) {
	var w stdValue
	if err := json.Unmarshal(b, &w); err != nil {
		return Value{}, err
	}
	return Value{w.Kind, w.I, w.U, float64(w.F), w.B}, nil
}

// caseVariantKeys reports whether some object of data has a member named like one of names
// but in other case, or a repeated member: encoding/json matched struct fields without
// regard to case, and kept the type error of a repeated member's earlier value, where the
// readers over jsonv match names exactly and read the last value (ParseJSON checks each).
func caseVariantKeys(data []byte, names ...string) bool {
	v, err := jsonv.Parse(data)
	if err != nil {
		return false
	}
	var walk func(v *jsonv.Value) bool
	walk = func(v *jsonv.Value) bool {
		for i, k := range v.Keys {
			for _, n := range names {
				if k != n && strings.EqualFold(k, n) {
					return true
				}
			}
			if walk(&v.Vals[i]) {
				return true
			}
		}
		for i := range v.Elems {
			if walk(&v.Elems[i]) {
				return true
			}
		}
		return false
	}
	return walk(&v)
}

var wireNames = []string{"op", "args", "col", "value", "low", "high", "values", "envelope"}

// FuzzParseJSONStd: ParseJSON accepts and refuses what the encoding/json reader did, with
// the same trees, and MarshalJSON writes what the encoding/json writer did, byte for byte,
// for trees from JSON and from SQL.
func FuzzParseJSONStd(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
		if e, err := Parse(s); err == nil {
			js, _ := e.MarshalJSON()
			f.Add(js)
		}
	}
	for _, s := range []string{
		`{"op":"like","col":"x","value":null}`, `{"op":"in","col":{"base64":"/w=="},"values":[{"number":".5"},true,{"date":"2024-01-01"}]}`,
		`{"op":"and","args":[null,{"op":"is null","col":"a"}]}`, `{"op":"st_within","col":"g","envelope":[null,1,2,3]}`,
		`{"op":"=","col":"a","value":{"date":"x","date":"2024-01-02"}}`, `{"op":"OR","args":[],"args":null}`,
		` {"op":"<=","col":"<&>","value":"\u2028<"} `, `{"op":"=","col":"a","value":1}]`, `{"Op":"=","col":"a","value":1}`,
		`{"op":"=","col":"a","value":[1, 2]}`, `{"op":"=","col":"a","value":1,"value":null}`, `{"op":5}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if e, err := Parse(string(data)); err == nil {
			sameJSON(t, e)
		}
		got, err := ParseJSON(data)
		want, wantErr := stdParseJSON(data)
		if (err == nil) != (wantErr == nil) {
			// The encoding/json Decoder stopped at the first value and took a ']' or '}'
			// after it for the end of an enclosing one.
			if wantErr == nil && !json.Valid(data) {
				return
			}
			if caseVariantKeys(data, wireNames...) {
				return
			}
			t.Fatalf("%s: ParseJSON %v, encoding/json %v", data, err, wantErr)
		}
		if err != nil {
			if !errors.Is(err, ErrJSON) {
				t.Fatalf("%s: %v does not wrap ErrJSON", data, err)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ParseJSON %#v, encoding/json %#v", data, got, want)
		}
		sameJSON(t, got)
	})
}

// sameJSON checks that e's MarshalJSON is the encoding/json writer's form.
func sameJSON(t *testing.T, e Expr) {
	t.Helper()
	got, err := e.MarshalJSON()
	want, wantErr := stdExpr{e}.MarshalJSON()
	if (err == nil) != (wantErr == nil) || string(got) != string(want) {
		t.Fatalf("%s: MarshalJSON %s %v, encoding/json %s %v", e, got, err, want, wantErr)
	}
}

// FuzzValueJSONStd: a Value's JSON reads as encoding/json read it, and writes as it wrote.
func FuzzValueJSONStd(f *testing.F) {
	for _, v := range []Value{FloatValue(math.NaN()), FloatValue(math.Inf(1)), FloatValue(-0.5), FloatValue(1e21),
		IntValue(-3), BytesValue([]byte("x<>")), BytesValue([]byte{}), DecimalInt64(1420), {Kind: 200, U: math.MaxUint64}} {
		b, _ := stdMarshalValue(v)
		f.Add(b)
	}
	for _, s := range []string{`{"Kind":3,"F":"1.5"}`, `{"F":null}`, `{"F":"-inf","B":[1,null,255]}`, `{"B":"AA\nAA=="}`,
		`{"Kind":256}`, `{"I":1.0}`, `{"U":-1}`, `{"F":1e400}`, `null`, `[]`, `{"kind":3}`, `{"B":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got Value
		err := got.UnmarshalJSON(data)
		if err == nil {
			w, _ := stdMarshalValue(got)
			if b := got.AppendJSON(nil); string(b) != string(w) {
				t.Fatalf("AppendJSON %s, encoding/json %s", b, w)
			}
		}
		if caseVariantKeys(data, "Kind", "I", "U", "F", "B") || repeatedKey(data) {
			return
		}
		want, wantErr := stdUnmarshalValue(data)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: UnmarshalJSON %v, encoding/json %v", data, err, wantErr)
		}
		if err != nil {
			if !errors.Is(err, ErrJSON) {
				t.Fatalf("%s: %v does not wrap ErrJSON", data, err)
			}
			return
		}
		if math.Float64bits(got.F) != math.Float64bits(want.F) {
			t.Fatalf("%s: F %v, encoding/json %v", data, got.F, want.F)
		}
		got.F, want.F = 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %#v, encoding/json %#v", data, got, want)
		}
	})
}

// repeatedKey reports whether an object of data repeats a member.
func repeatedKey(data []byte) bool {
	v, err := jsonv.Parse(data)
	if err != nil {
		return false
	}
	var walk func(v *jsonv.Value) bool
	walk = func(v *jsonv.Value) bool {
		seen := map[string]bool{}
		for i, k := range v.Keys {
			if seen[k] || walk(&v.Vals[i]) {
				return true
			}
			seen[k] = true
		}
		for i := range v.Elems {
			if walk(&v.Elems[i]) {
				return true
			}
		}
		return false
	}
	return walk(&v)
}
