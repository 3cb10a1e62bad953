package prune

import "math/big"

// The tests' reference conversions between math/big and big-endian two's complement (the
// package itself computes with exactnum).

// twosToBig decodes big-endian two's complement.
func twosToBig(b []byte) *big.Int {
	z := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		z.Sub(z, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return z
}

// bigToTwos encodes z as minimal big-endian two's complement (at least one byte).
func bigToTwos(z *big.Int) []byte {
	if z.Sign() >= 0 {
		b := z.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -z-1 has the complement bits of z.
	m := new(big.Int).Neg(z)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}
