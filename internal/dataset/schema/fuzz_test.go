package schema

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
)

var fuzzTypes = []Type{
	{Kind: Int8}, {Kind: Int16}, {Kind: Int32}, {Kind: Int64}, {Kind: Float32}, {Kind: Float64}, {Kind: String}, {Kind: Binary},
	{Kind: Date}, {Kind: Decimal, Precision: 9, Scale: 2}, {Kind: Decimal, Precision: 20, Scale: 4}, {Kind: Decimal, Precision: 38, Scale: 0},
	tsMs, tsUs, tsNs, ntz, {Kind: Timestamp, Unit: prune.Second}, {Kind: Timestamp}, {Kind: Bool},
}

// valueOf returns a value of t's comparison kind holding v.
func valueOf(t Type, v int64) prune.Value {
	switch t.Kind {
	case Float32, Float64:
		return prune.FloatValue(float64(v))
	case String, Binary:
		return prune.StringValue("x")
	case Date:
		return prune.DateValue(int32(v))
	case Decimal:
		return prune.DecimalInt64(v)
	case Timestamp:
		return prune.TimestampValue(v)
	case Bool:
		return prune.BoolValue(v&1 == 1)
	}
	return prune.IntValue(v)
}

// asRat returns a bound's numeric value in seconds (timestamps, dates) or units (numbers).
func asRat(v prune.Value, t Type) *big.Rat {
	switch t.Kind {
	case Float32, Float64:
		r, _ := new(big.Rat).SetString(big.NewFloat(v.F).Text('g', 40))
		return r
	case Decimal:
		u, _ := new(big.Int).SetString(decimalInt(v).String(), 10)
		return new(big.Rat).SetFrac(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil))
	case Date:
		return new(big.Rat).SetInt64(v.I * 86400)
	case Timestamp:
		per := map[prune.Unit]int64{prune.Second: 1, prune.Milli: 1e3, prune.Micro: 1e6, prune.Nano: 1e9}[t.Unit]
		return big.NewRat(v.I, per)
	}
	return new(big.Rat).SetInt64(v.I)
}

// FuzzCastStats checks that CastStats never panics and that a cast bound is still a bound:
// the new min is <= the old min and the new max >= the old max, numerically, whatever the
// pair of types (pairs that do not widen must drop their bounds).
func FuzzCastStats(f *testing.F) {
	f.Add(uint8(2), uint8(3), int64(-5), int64(70000))
	f.Add(uint8(14), uint8(13), int64(1500), int64(2501))
	f.Add(uint8(9), uint8(10), int64(-150), int64(256))
	f.Add(uint8(8), uint8(15), int64(-1), int64(19723))
	f.Fuzz(func(t *testing.T, fi, ti uint8, lo, hi int64) {
		from, to := fuzzTypes[int(fi)%len(fuzzTypes)], fuzzTypes[int(ti)%len(fuzzTypes)]
		if from.Kind == Date {
			lo, hi = int64(int32(lo)), int64(int32(hi))
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		in := prune.ColStats{HasMin: true, HasMax: true, Min: valueOf(from, lo), Max: valueOf(from, hi), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 2}
		out := CastStats(in, from, to)
		if from == to {
			if !reflect.DeepEqual(out, in) {
				t.Fatalf("identity cast changed %+v to %+v", in, out)
			}
			return
		}
		if !Widens(from, to) {
			if out.HasMin || out.HasMax {
				t.Fatalf("%s -> %s kept bounds without widening", from, to)
			}
			return
		}
		numeric := func(k Kind) bool { return k != String && k != Binary && k != Bool }
		if !numeric(from.Kind) || !numeric(to.Kind) {
			return
		}
		if out.HasMin && asRat(out.Min, to).Cmp(asRat(in.Min, from)) > 0 {
			t.Fatalf("%s -> %s: min %v became %v", from, to, in.Min, out.Min)
		}
		if out.HasMax && asRat(out.Max, to).Cmp(asRat(in.Max, from)) < 0 {
			t.Fatalf("%s -> %s: max %v became %v", from, to, in.Max, out.Max)
		}
	})
}
