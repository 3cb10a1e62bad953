package prune

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// coerce turns "column op literal" into a leaf: a comparison against a Value in the column's
// domain, or a constant when the literal cannot be represented (see Bind for the rules).
func coerce(ci int, path string, t ColumnType, op Op, lit Literal) (*bnode, error) {
	leaf := func(v Value) *bnode { return &bnode{op: bCmp, col: ci, only: ci, cmp: op, val: v} }
	incomparable := func() error {
		return fmt.Errorf("%w: column %q of type %s cannot be compared with %s literal %s",
			ErrIncomparable, path, t, lit.Kind, lit)
	}
	bad := func(err error) error {
		return fmt.Errorf("%w: column %q (%s): %s: %v", ErrBadLiteral, path, t, lit, err)
	}
	if _, ok := flip[op]; !ok {
		return nil, fmt.Errorf("%w: unknown operator %q", ErrSyntax, op)
	}
	numeric := lit.Kind == LitInt || lit.Kind == LitFloat
	switch t.Kind {
	case Bool:
		if lit.Kind != LitBool {
			return nil, incomparable()
		}
		return leaf(BoolValue(lit.Bool)), nil
	case Bytes:
		if lit.Kind != LitString {
			return nil, incomparable()
		}
		return leaf(StringValue(lit.Text)), nil
	case Float:
		var f float64
		switch {
		case numeric:
			bits := 64
			if t.Physical == PhysFloat {
				bits = 32
			}
			var err error
			f, err = strconv.ParseFloat(lit.Text, bits)
			if err != nil && !isRangeErr(err) {
				return nil, bad(err)
			}
		case lit.Kind == LitString:
			var ok bool
			if f, ok = specialFloat(lit.Text); !ok {
				return nil, incomparable()
			}
		default:
			return nil, incomparable()
		}
		n := leaf(FloatValue(f))
		n.nanLit = math.IsNaN(f)
		return n, nil
	}

	// An integer literal inside an integer column's range compares as it is: no rational
	// needed (a join's build side pushed as an IN list of 100k keys binds several times
	// faster; the general path below gives the same node).
	if t.Kind == Int && lit.Kind == LitInt {
		if v, err := strconv.ParseInt(lit.Text, 10, 64); err == nil && (t.Physical != Int32 || v == int64(int32(v))) {
			return leaf(Value{Kind: t.Kind, I: v}), nil
		}
	}

	// Integer domains: compute the literal exactly as a rational in column units.
	var r *big.Rat
	switch t.Kind {
	case Int, Uint, Decimal:
		if !numeric {
			return nil, incomparable()
		}
		var ok bool
		if r, ok = new(big.Rat).SetString(lit.Text); !ok {
			return nil, bad(fmt.Errorf("malformed number"))
		}
		if t.Kind == Decimal {
			r.Mul(r, new(big.Rat).SetInt(pow10(int64(t.Scale))))
		}
	case Date, Timestamp:
		var s string
		switch lit.Kind {
		case LitDate, LitTimestamp, LitString:
			s = lit.Text
		default:
			return nil, incomparable()
		}
		dt, err := parseDateTime(s, lit.Kind == LitDate)
		if err != nil {
			return nil, bad(err)
		}
		if t.Kind == Date {
			r = dt.seconds(true)
			r.Quo(r, big.NewRat(86400, 1))
		} else {
			r = dt.seconds(t.UTC)
			r.Mul(r, big.NewRat(t.Unit.perSecond(), 1))
		}
	case Time:
		if lit.Kind != LitString {
			return nil, incomparable()
		}
		sec, err := parseTimeOfDay(lit.Text)
		if err != nil {
			return nil, bad(err)
		}
		r = sec.Mul(sec, big.NewRat(t.Unit.perSecond(), 1))
	default:
		return nil, fmt.Errorf("%w: column %q: kind %s", ErrBadType, path, t.Kind)
	}
	lo, hi := intRange(t)
	op2, k, konst := roundToInt(r, op, lo, hi)
	if konst != noConst {
		return &bnode{op: bConst, col: ci, only: ci, konst: konst == constTrue}, nil
	}
	n := leaf(intValue(t, k))
	n.cmp = op2
	return n, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// specialFloat accepts the spellings of NaN and infinities a user can write as a string.
func specialFloat(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "nan":
		return math.NaN(), true
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

const (
	noConst = iota
	constFalse
	constTrue
)

// roundToInt rewrites "x op r" over integers x in [lo, hi] (nil = unbounded) as
// "x op2 k" with integer k inside the range, or as a constant for non-null x.
// Non-integer r: = is false, != true, x < r ⇔ x <= floor(r), x > r ⇔ x >= ceil(r).
func roundToInt(r *big.Rat, op Op, lo, hi *big.Int) (Op, *big.Int, int) {
	k := new(big.Int)
	if r.IsInt() {
		k.Set(r.Num())
	} else {
		k.Div(r.Num(), r.Denom()) // Euclidean division by a positive denominator: floor
		switch op {
		case OpEq:
			return op, nil, constFalse
		case OpNe:
			return op, nil, constTrue
		case OpLt, OpLe:
			op = OpLe
		case OpGt, OpGe:
			op = OpGe
			k.Add(k, big.NewInt(1))
		}
	}
	below := lo != nil && k.Cmp(lo) < 0
	above := hi != nil && k.Cmp(hi) > 0
	if !below && !above {
		return op, k, noConst
	}
	// Every x lies above k (below) or under k (above).
	res := false
	switch op {
	case OpNe:
		res = true
	case OpLt, OpLe:
		res = above
	case OpGt, OpGe:
		res = below
	}
	if res {
		return op, nil, constTrue
	}
	return op, nil, constFalse
}

// intRange returns the inclusive range of stored integers for a column (nil = unbounded).
func intRange(t ColumnType) (lo, hi *big.Int) {
	bits := 64
	switch t.Kind {
	case Date:
		bits = 32
	case Int, Time, Decimal:
		switch t.Physical {
		case Int32:
			bits = 32
		case FixedLenByteArray:
			if t.Kind == Decimal {
				bits = 8 * int(t.TypeLength)
			}
		case ByteArray:
			if t.Kind == Decimal {
				return nil, nil
			}
		}
	case Uint:
		if t.Physical == Int32 {
			bits = 32
		}
		hi = new(big.Int).Lsh(big.NewInt(1), uint(bits))
		return big.NewInt(0), hi.Sub(hi, big.NewInt(1))
	}
	hi = new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	lo = new(big.Int).Neg(hi)
	return lo, hi.Sub(hi, big.NewInt(1))
}

// intValue builds the Value for integer k (already inside the column's range).
func intValue(t ColumnType, k *big.Int) Value {
	switch t.Kind {
	case Uint:
		return UintValue(k.Uint64())
	case Decimal:
		return DecimalBig(k)
	}
	return Value{Kind: t.Kind, I: k.Int64()}
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }
