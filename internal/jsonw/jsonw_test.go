package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

var strCases = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr",
	"\b\f\x00\x01\x1f\x7f", "é ü 漢字 🙂", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
	"ends with \\", string([]byte{0xf0, 0x9f, 0x99}),
}

func TestStringAsMarshal(t *testing.T) {
	for _, s := range strCases {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, Marshal %s", s, got, want)
		}
		if got, want := StringNoHTML(nil, s), encodeNoHTML(s); string(got) != want {
			t.Errorf("StringNoHTML(%q) = %s, Encoder %s", s, got, want)
		}
	}
}

// encodeNoHTML is s as an Encoder writes it after SetEscapeHTML(false).
func encodeNoHTML(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func FuzzString(f *testing.F) {
	for _, s := range strCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String([]byte("x"), s); string(got[1:]) != string(want) {
			t.Fatalf("String(%q) = %s, Marshal %s", s, got[1:], want)
		}
		if got, want := StringNoHTML(nil, s), encodeNoHTML(s); string(got) != want {
			t.Fatalf("StringNoHTML(%q) = %s, Encoder %s", s, got, want)
		}
	})
}

var floatCases = []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 123.456, 1e-6, 9.99e-7, 1e-7, 1e-10, 1.234e-300,
	5e-324, 1e20, 1e21, 1.5e21, 1e300, math.MaxFloat64, -math.MaxFloat64, 0.000123, 12.345678901234567, 3.0000000000000004}

func TestFloatAsMarshal(t *testing.T) {
	for _, x := range floatCases {
		want, _ := json.Marshal(x)
		got, ok := Float(nil, x)
		if !ok || string(got) != string(want) {
			t.Errorf("Float(%v) = %s %v, Marshal %s", x, got, ok, want)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := json.Marshal(x); err == nil {
			t.Fatalf("Marshal(%v) did not fail", x)
		}
		if got, ok := Float([]byte("x"), x); ok || string(got) != "x" {
			t.Errorf("Float(%v) = %q %v, want unchanged and false", x, got, ok)
		}
	}
}

func FuzzFloat(f *testing.F) {
	for _, x := range floatCases {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		want, err := json.Marshal(x)
		got, ok := Float(nil, x)
		if (err == nil) != ok || ok && string(got) != string(want) {
			t.Fatalf("Float(%v) = %s %v, Marshal %s %v", x, got, ok, want, err)
		}
	})
}

func TestObject(t *testing.T) {
	o := Begin([]byte("["))
	o.Int(`,"a":`, -3)
	o.Str(`,"s":`, "<x>")
	o.Strings(`,"nil":`, nil)
	o.Strings(`,"empty":`, []string{})
	o.Strings(`,"list":`, []string{"p", "q\n"})
	o.AnyKey("k\"ey")
	o.B = append(o.B, "true"...)
	got := string(o.End())
	want := `[{"a":-3,"s":"\u003cx\u003e","nil":null,"empty":[],"list":["p","q\n"],"k\"ey":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	e := Begin(nil)
	e.AnyKey("first")
	e.B = append(e.B, '1')
	if got := string(e.End()); got != `{"first":1}` {
		t.Errorf("AnyKey first: %s", got)
	}
	if b := Begin(nil); string(b.End()) != "{}" {
		got := string(b.End())
		t.Errorf("empty object: %s", got)
	}
}
