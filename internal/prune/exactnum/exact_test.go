package exactnum

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

func toBig(x Int) *big.Int {
	z := new(big.Int).SetBytes(magBytes(x.mag))
	if x.neg {
		z.Neg(z)
	}
	return z
}

// fromTwosBig is the reference two's complement decoding.
func fromTwosBig(b []byte) *big.Int {
	z := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		z.Sub(z, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return z
}

// checkOps compares every operation on x and y with math/big's.
func checkOps(t *testing.T, xb, yb []byte) {
	t.Helper()
	x, y := FromTwos(xb), FromTwos(yb)
	bx, by := fromTwosBig(xb), fromTwosBig(yb)
	eq := func(op string, got Int, want *big.Int) {
		t.Helper()
		if toBig(got).Cmp(want) != 0 || got.String() != want.String() {
			t.Fatalf("%s(%v, %v) = %v, math/big %v", op, bx, by, got, want)
		}
	}
	eq("x", x, bx)
	eq("add", x.Add(y), new(big.Int).Add(bx, by))
	eq("sub", x.Sub(y), new(big.Int).Sub(bx, by))
	eq("mul", x.Mul(y), new(big.Int).Mul(bx, by))
	eq("neg", x.Neg(), new(big.Int).Neg(bx))
	if got, want := x.Cmp(y), bx.Cmp(by); got != want {
		t.Fatalf("cmp(%v, %v) = %d, want %d", bx, by, got, want)
	}
	if x.Sign() != bx.Sign() || x.IsInt64() != bx.IsInt64() || x.IsInt64() && x.Int64() != bx.Int64() {
		t.Fatalf("sign/int64 of %v", bx)
	}
	if bx.Sign() >= 0 && bx.IsUint64() && x.Uint64() != bx.Uint64() {
		t.Fatalf("uint64 of %v", bx)
	}
	if x.BitLen() != bx.BitLen() {
		t.Fatalf("bitLen(%v) = %d, want %d", bx, x.BitLen(), bx.BitLen())
	}
	if n := (bx.BitLen() + 7) / 8; true {
		got, want := x.FillBytes(make([]byte, n+1)), new(big.Int).Abs(bx).FillBytes(make([]byte, n+1))
		if string(got) != string(want) {
			t.Fatalf("fillBytes(%v) = %x, want %x", bx, got, want)
		}
	}
	if got, want := x.Twos(), bigTwos(bx); string(got) != string(want) {
		t.Fatalf("twos(%v) = %x, want %x", bx, got, want)
	}
	if by.Sign() > 0 {
		q, exact := x.DivFloor(y)
		m := new(big.Int)
		wq, _ := new(big.Int).DivMod(bx, by, m) // Euclidean = floor for a positive divisor
		eq("divFloor", q, wq)
		if exact != (m.Sign() == 0) {
			t.Fatalf("divFloor(%v, %v) exact = %v", bx, by, exact)
		}
	}
}

// bigTwos is the reference encoding, by another route: the fewest n bytes with
// -2**(8n-1) <= z < 2**(8n-1), then z mod 2**(8n) in n big-endian bytes.
func bigTwos(z *big.Int) []byte {
	n := 1
	for {
		half := new(big.Int).Lsh(big.NewInt(1), uint(8*n-1))
		if z.Cmp(half) < 0 && z.Cmp(new(big.Int).Neg(half)) >= 0 {
			break
		}
		n++
	}
	m := new(big.Int).Mod(z, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	return m.FillBytes(make([]byte, n))
}

var opCases = [][]byte{
	nil, {0}, {1}, {0xff}, {0x80}, {0x7f}, {0, 0x80}, {0xff, 0xff, 0xff, 0xff, 0xff},
	{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x80, 0, 0, 0, 0, 0, 0, 0},
	{0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99},
	{0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
}

func Test_opsMatchBig(t *testing.T) {
	for _, x := range opCases {
		for _, y := range opCases {
			checkOps(t, x, y)
		}
	}
}

func FuzzOps(f *testing.F) {
	for _, x := range opCases {
		f.Add(x, []byte{0x3, 0xe8})
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) > 200 || len(y) > 200 {
			return
		}
		checkOps(t, x, y)
	})
}

func Test_constructors(t *testing.T) {
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 32, -(1 << 32)} {
		if got := NewInt(v); toBig(got).Int64() != v || !got.IsInt64() || got.Int64() != v {
			t.Errorf("NewInt(%d) = %v", v, got)
		}
	}
	if got := NewUint(math.MaxUint64); toBig(got).Uint64() != math.MaxUint64 {
		t.Errorf("NewUint(max) = %v", got)
	}
	for n := 0; n < 60; n++ {
		want := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
		if toBig(Pow10(n)).Cmp(want) != 0 {
			t.Errorf("Pow10(%d) = %v", n, Pow10(n))
		}
		if toBig(Shl1(uint(n))).Cmp(new(big.Int).Lsh(big.NewInt(1), uint(n))) != 0 {
			t.Errorf("Shl1(%d) = %v", n, Shl1(uint(n)))
		}
	}
}

var decimalCases = []string{
	"0", "-0", "+0", "7", "-42", "007", "123456789012345678901234567890123456789",
	"1.5", "-1.5", ".5", "5.", "-.25", "0.000", "3.14159265358979323846264338327950288",
	"1e3", "1E3", "1e+3", "1e-3", "-2.5e-07", "1e+21", "9.999e400", "1e-400", "12e0",
	"", "-", "+", ".", "e3", "1e", "1e+", "1e-", "1.2.3", "1e3e4", "1e+-3", "--1", "+-1",
	"0x10", "1/2", "1_000", "NaN", "+Inf", "Inf", " 1", "1 ", "1a", "١",
}

// ParseDecimal agrees with big.Rat.SetString on its grammar and rejects the rest; Floor agrees
// with big's floor division.
func Test_parseDecimal(t *testing.T) {
	for _, s := range decimalCases {
		checkDecimal(t, s)
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range decimalCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 60 {
			return // long mantissas are no different
		}
		checkDecimal(t, s)
	})
}

func checkDecimal(t *testing.T, s string) {
	t.Helper()
	got, ok := ParseDecimal(s)
	if hugeExponent(s) {
		if ok {
			t.Errorf("ParseDecimal(%q) accepted an exponent beyond ±%d", s, maxExponent)
		}
		return // SetString would take long
	}
	want, wantOK := new(big.Rat).SetString(s)
	if !ok {
		if wantOK && decimalGrammar(s) {
			t.Errorf("ParseDecimal(%q) rejected, SetString gives %v", s, want)
		}
		return
	}
	if !wantOK || new(big.Rat).SetFrac(toBig(got.Num), toBig(got.Den)).Cmp(want) != 0 {
		t.Errorf("ParseDecimal(%q) = %v/%v, SetString = %v, %v", s, got.Num, got.Den, want, wantOK)
		return
	}
	for _, k := range []int64{1, 3, 86400, 1_000_000_007} {
		q := got.QuoInt(NewInt(k)).MulInt(NewInt(7))
		fl, exact := q.Floor()
		r := new(big.Rat).Mul(want, big.NewRat(7, k))
		wf := new(big.Int).Div(r.Num(), r.Denom())
		if toBig(fl).Cmp(wf) != 0 || exact != r.IsInt() {
			t.Errorf("floor(%s * 7/%d) = %v %v, math/big %v %v", s, k, fl, exact, wf, r.IsInt())
		}
	}
}

// hugeExponent reports an exponent beyond ±maxExponent.
func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	e := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
	n, err := strconv.Atoi(e)
	return len(e) > 6 || err == nil && n > maxExponent
}

// decimalGrammar is the grammar ParseDecimal promises to accept, as a second opinion.
func decimalGrammar(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	i, n := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, n = i+1, n+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		k := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == k || i-k > 9 {
			return false
		}
	}
	return i == len(s)
}
