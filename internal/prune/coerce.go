package prune

import (
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// coerce turns "column op literal" into a leaf: a comparison against a Value in the column's
// domain, or a constant when the literal cannot be represented (see Bind for the rules).
func coerce(ci int, path string, t ColumnType, op Op, lit Literal) (*bnode, error) {
	leaf := func(v Value) *bnode { return &bnode{op: bCmp, col: ci, only: ci, cmp: op, val: v} }
	incomparable := func() error {
		return errf.Errorf("%w: column %q of type %s cannot be compared with %s literal %s",
			ErrIncomparable, path, t, lit.Kind, lit)
	}
	bad := func(err error) error {
		return errf.Errorf("%w: column %q (%s): %s: %v", ErrBadLiteral, path, t, lit, err)
	}
	if _, ok := flip[op]; !ok {
		return nil, errf.Errorf("%w: unknown operator %q", ErrSyntax, string(op))
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
	var r exactnum.Rat
	switch t.Kind {
	case Int, Uint, Decimal:
		if !numeric {
			return nil, incomparable()
		}
		var ok bool
		if r, ok = exactnum.ParseDecimal(lit.Text); !ok {
			return nil, bad(errf.Errorf("malformed number"))
		}
		if t.Kind == Decimal {
			r = r.MulInt(exactnum.Pow10(int(t.Scale)))
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
			r = dt.seconds(true).QuoInt(exactnum.NewInt(86400))
		} else {
			r = dt.seconds(t.UTC).MulInt(exactnum.NewInt(t.Unit.perSecond()))
		}
	case Time:
		if lit.Kind != LitString {
			return nil, incomparable()
		}
		sec, err := parseTimeOfDay(lit.Text)
		if err != nil {
			return nil, bad(err)
		}
		r = sec.MulInt(exactnum.NewInt(t.Unit.perSecond()))
	default:
		return nil, errf.Errorf("%w: column %q: kind %s", ErrBadType, path, t.Kind)
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
func roundToInt(r exactnum.Rat, op Op, lo, hi *exactnum.Int) (Op, exactnum.Int, int) {
	k, isInt := r.Floor()
	if !isInt {
		switch op {
		case OpEq:
			return op, k, constFalse
		case OpNe:
			return op, k, constTrue
		case OpLt, OpLe:
			op = OpLe
		case OpGt, OpGe:
			op = OpGe
			k = k.Add(exactnum.NewInt(1))
		}
	}
	below := lo != nil && k.Cmp(*lo) < 0
	above := hi != nil && k.Cmp(*hi) > 0
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
		return op, k, constTrue
	}
	return op, k, constFalse
}

// intRange returns the inclusive range of stored integers for a column (nil = unbounded).
func intRange(t ColumnType) (lo, hi *exactnum.Int) {
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
		zero, max := exactnum.NewInt(0), exactnum.Shl1(uint(bits)).Sub(exactnum.NewInt(1))
		return &zero, &max
	}
	h := exactnum.Shl1(uint(bits - 1))
	l, m := h.Neg(), h.Sub(exactnum.NewInt(1))
	return &l, &m
}

// intValue builds the Value for integer k (already inside the column's range).
func intValue(t ColumnType, k exactnum.Int) Value {
	switch t.Kind {
	case Uint:
		return UintValue(k.Uint64())
	case Decimal:
		return DecimalExact(k)
	}
	return Value{Kind: t.Kind, I: k.Int64()}
}
