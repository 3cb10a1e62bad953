// Package exactnum is the arbitrary-precision integer and rational arithmetic that binding a
// literal to a column (prune's coerce) and the table layers' decimal statistics need: add,
// subtract, multiply, floor division by a positive integer, comparison, decimal text and
// big-endian two's complement bytes.
//
// Why not math/big: in the wasm module it costs ~30 KB brotli (its scanner also keeps fmt's
// printer reachable) for the few operations here, which run once per literal or statistic on
// numbers of at most a few thousand bits (BENCHMARKS.md, "Module size: the lean module under 1 MB").
// exact_test.go checks every operation against math/big.
//
// Values are immutable: every operation returns a new Int.
package exactnum

import (
	"math"
	"math/bits"
	"strconv"
)

// Int is an integer of any size: its magnitude in little-endian 32-bit limbs with no high zero
// limb (zero has none), and its sign.
type Int struct {
	neg bool
	mag []uint32
}

// NewInt returns v.
func NewInt(v int64) Int {
	if v < 0 {
		return Int{neg: true, mag: fromUint(uint64(-v))} // -MinInt64 wraps to its magnitude
	}
	return Int{mag: fromUint(uint64(v))}
}

// NewUint returns v.
func NewUint(v uint64) Int { return Int{mag: fromUint(v)} }

func fromUint(v uint64) []uint32 {
	switch {
	case v == 0:
		return nil
	case v>>32 == 0:
		return []uint32{uint32(v)}
	}
	return []uint32{uint32(v), uint32(v >> 32)}
}

// Pow10 returns 10**n for n >= 0.
func Pow10(n int) Int {
	r := NewInt(1)
	for n > 0 {
		k := min(n, 9)
		r = Int{mag: mulWord(r.mag, uint32(math.Pow10(k)))}
		n -= k
	}
	return r
}

// Shl1 returns 2**n for n >= 0.
func Shl1(n uint) Int {
	mag := make([]uint32, n/32+1)
	mag[n/32] = 1 << (n % 32)
	return Int{mag: mag}
}

// Sign is -1, 0 or +1.
func (x Int) Sign() int {
	switch {
	case len(x.mag) == 0:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// Neg returns -x.
func (x Int) Neg() Int {
	if len(x.mag) == 0 {
		return x
	}
	return Int{neg: !x.neg, mag: x.mag}
}

// Cmp compares x and y: -1, 0 or +1.
func (x Int) Cmp(y Int) int {
	if x.neg != y.neg {
		if len(x.mag) == 0 && len(y.mag) == 0 {
			return 0
		}
		if x.neg {
			return -1
		}
		return 1
	}
	c := cmpMag(x.mag, y.mag)
	if x.neg {
		return -c
	}
	return c
}

// Add returns x+y.
func (x Int) Add(y Int) Int {
	if x.neg == y.neg {
		return Int{neg: x.neg, mag: addMag(x.mag, y.mag)}
	}
	if cmpMag(x.mag, y.mag) >= 0 {
		return norm(x.neg, subMag(x.mag, y.mag))
	}
	return norm(y.neg, subMag(y.mag, x.mag))
}

// Sub returns x-y.
func (x Int) Sub(y Int) Int { return x.Add(y.Neg()) }

// Mul returns x*y.
func (x Int) Mul(y Int) Int { return norm(x.neg != y.neg, mulMag(x.mag, y.mag)) }

// DivFloor returns floor(x/d) and whether the division is exact, for d > 0.
func (x Int) DivFloor(d Int) (Int, bool) {
	q, r := divMag(x.mag, d.mag)
	exact := len(r) == 0
	if x.neg && !exact {
		q = addMag(q, []uint32{1}) // toward -infinity
	}
	return norm(x.neg, q), exact
}

// IsInt64 reports whether x fits in an int64.
func (x Int) IsInt64() bool {
	if len(x.mag) > 2 {
		return false
	}
	u := x.low64()
	if x.neg {
		return u <= 1<<63
	}
	return u < 1<<63
}

// Int64 is x for IsInt64(x).
func (x Int) Int64() int64 {
	if x.neg {
		return -int64(x.low64())
	}
	return int64(x.low64())
}

// Uint64 is x's low 64 bits of magnitude (x for 0 <= x < 2**64).
func (x Int) Uint64() uint64 { return x.low64() }

func (x Int) low64() uint64 {
	var u uint64
	if len(x.mag) > 0 {
		u = uint64(x.mag[0])
	}
	if len(x.mag) > 1 {
		u |= uint64(x.mag[1]) << 32
	}
	return u
}

// BitLen is the bit length of x's magnitude (0 for 0), as big.Int's BitLen.
func (x Int) BitLen() int {
	if len(x.mag) == 0 {
		return 0
	}
	return 32*(len(x.mag)-1) + bits.Len32(x.mag[len(x.mag)-1])
}

// FillBytes writes x's magnitude big-endian into all of buf, zero-padded, as big.Int's
// FillBytes; it panics when the magnitude does not fit.
func (x Int) FillBytes(buf []byte) []byte {
	b := magBytes(x.mag)
	if len(b) > len(buf) {
		panic("exactnum: value does not fit in buffer")
	}
	clear(buf[:len(buf)-len(b)])
	copy(buf[len(buf)-len(b):], b)
	return buf
}

// String is x in decimal, as big.Int's String.
func (x Int) String() string {
	if len(x.mag) == 0 {
		return "0"
	}
	var chunks []uint32 // base 1e9, least significant first
	m := x.mag
	for len(m) > 0 {
		var r uint32
		m, r = divWord(m, 1e9)
		chunks = append(chunks, r)
	}
	var b []byte
	if x.neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, uint64(chunks[len(chunks)-1]), 10)
	for i := len(chunks) - 2; i >= 0; i-- {
		s := strconv.FormatUint(uint64(chunks[i]), 10)
		for k := len(s); k < 9; k++ {
			b = append(b, '0')
		}
		b = append(b, s...)
	}
	return string(b)
}

// FromTwos decodes big-endian two's complement bytes.
func FromTwos(b []byte) Int {
	mag := make([]uint32, (len(b)+3)/4)
	for i := range b {
		k := len(b) - 1 - i // byte k from the least significant end
		mag[k/4] |= uint32(b[i]) << (8 * (k % 4))
	}
	x := norm(false, mag)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x = x.Sub(Shl1(uint(8 * len(b))))
	}
	return x
}

// Twos encodes x as minimal big-endian two's complement (at least one byte).
func (x Int) Twos() []byte {
	m := x
	if x.neg {
		m = x.Neg().Sub(NewInt(1)) // -x-1 has the complement bits of x
	}
	b := magBytes(m.mag)
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	if x.neg {
		for i := range b {
			b[i] = ^b[i]
		}
	}
	return b
}

func magBytes(mag []uint32) []byte {
	b := make([]byte, 0, 4*len(mag))
	for i := len(mag) - 1; i >= 0; i-- {
		w := mag[i]
		b = append(b, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
	}
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

func norm(neg bool, mag []uint32) Int {
	for len(mag) > 0 && mag[len(mag)-1] == 0 {
		mag = mag[:len(mag)-1]
	}
	if len(mag) == 0 {
		neg = false
	}
	return Int{neg: neg, mag: mag}
}

func cmpMag(a, b []uint32) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func addMag(a, b []uint32) []uint32 {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := make([]uint32, len(a)+1)
	var carry uint32
	for i := range a {
		var y uint32
		if i < len(b) {
			y = b[i]
		}
		out[i], carry = bits.Add32(a[i], y, carry)
	}
	out[len(a)] = carry
	return norm(false, out).mag
}

// subMag is a-b for a >= b.
func subMag(a, b []uint32) []uint32 {
	out := make([]uint32, len(a))
	var borrow uint32
	for i := range a {
		var y uint32
		if i < len(b) {
			y = b[i]
		}
		out[i], borrow = bits.Sub32(a[i], y, borrow)
	}
	return norm(false, out).mag
}

func mulMag(a, b []uint32) []uint32 {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	out := make([]uint32, len(a)+len(b))
	for i, x := range a {
		var carry uint64
		for j, y := range b {
			t := uint64(x)*uint64(y) + uint64(out[i+j]) + carry
			out[i+j], carry = uint32(t), t>>32
		}
		out[i+len(b)] = uint32(carry)
	}
	return norm(false, out).mag
}

func mulWord(a []uint32, w uint32) []uint32 { return mulMag(a, []uint32{w}) }

// divWord is a / w and a % w.
func divWord(a []uint32, w uint32) ([]uint32, uint32) {
	q := make([]uint32, len(a))
	var r uint64
	for i := len(a) - 1; i >= 0; i-- {
		t := r<<32 | uint64(a[i])
		q[i], r = uint32(t/uint64(w)), t%uint64(w)
	}
	return norm(false, q).mag, uint32(r)
}

// divMag is a / d and a % d for d > 0: by word when d is one limb, bit by bit otherwise (only
// literals with dozens of digits get there).
func divMag(a, d []uint32) (q, r []uint32) {
	if len(d) == 1 {
		q, w := divWord(a, d[0])
		if w == 0 {
			return q, nil
		}
		return q, []uint32{w}
	}
	if cmpMag(a, d) < 0 {
		return nil, a
	}
	q = make([]uint32, len(a))
	for i := len(a)*32 - 1; i >= 0; i-- {
		r = shl1Or(r, a[i/32]>>(i%32)&1)
		if cmpMag(r, d) >= 0 {
			r = subMag(r, d)
			q[i/32] |= 1 << (i % 32)
		}
	}
	return norm(false, q).mag, r
}

// shl1Or is 2*r + bit.
func shl1Or(r []uint32, bit uint32) []uint32 {
	out := make([]uint32, len(r)+1)
	carry := bit
	for i, w := range r {
		out[i], carry = w<<1|carry, w>>31
	}
	out[len(r)] = carry
	return norm(false, out).mag
}
