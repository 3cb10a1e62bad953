package prune

import (
	"strings"
)

// maxDepth bounds parenthesis/NOT nesting so that hostile input cannot exhaust the stack
// (the wasm stack is the browser's).
const maxDepth = 200

// Parse parses a SQL WHERE-clause subset into an Expr.
//
// Grammar (keywords are case-insensitive; precedence NOT > AND > OR):
//
//	expr      = or
//	or        = and { OR and }
//	and       = unary { AND unary }
//	unary     = NOT unary | '(' expr ')' | predicate
//	predicate = path cmpop literal | literal cmpop path | path cmpop path
//	          | path [NOT] BETWEEN literal AND literal
//	          | path [NOT] IN '(' literal { ',' literal } ')'
//	          | path [NOT] LIKE string | path [NOT] ILIKE string
//	          | path IS [NOT] NULL | path IS [NOT] TRUE | path IS [NOT] FALSE
//	          | path IS [NOT] DISTINCT FROM literal
//	          | path                                  (a boolean column: path = TRUE)
//	          | ST_Intersects '(' path ',' envelope ')' | ST_Within '(' path ',' envelope ')'
//	          | ST_Contains '(' envelope ',' path ')' | path '&&' envelope
//	envelope  = ST_MakeEnvelope '(' number ',' number ',' number ',' number ')'   (xmin, ymin, xmax, ymax)
//	cmpop     = '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='
//	path      = ident { '.' ident }        ident = [A-Za-z_][A-Za-z0-9_]* | '"' any ('""' escapes) '"'
//	literal   = base { '::' type } | CAST '(' literal AS type ')'
//	base      = ['-' | '+'] number | string | TRUE | FALSE | DATE string | TIMESTAMP string
//	          | TIMESTAMPTZ string
//	type      = DATE | TIMESTAMP | TIMESTAMPTZ | TIMESTAMP WITH TIME ZONE | VARCHAR | TEXT | STRING
//
// Numbers are integers or decimals with optional exponent, kept exactly. Strings use ” for
// a quote. DATE takes 'YYYY-MM-DD'; TIMESTAMP and TIMESTAMPTZ take an ISO 8601 date-time (or
// a date: midnight) with optional fraction and zone (Z, ±hh, ±hhmm, ±hh:mm). A cast applies to
// a literal only, as SQL writers spell typed literals ('2024-01-01'::DATE,
// CAST('2024-01-01' AS DATE)): it gives the string the type, or keeps a literal of that type;
// any other cast is refused rather than guessed (no casts of columns, no numeric casts). A plain string compared with a date or timestamp column is
// coerced by Bind. "x NOT IN (...)" parses as NOT (x IN (...)), likewise BETWEEN and LIKE.
// NULL is only allowed in IS [NOT] NULL: a comparison with NULL is never true. DATE and
// TIMESTAMP are identifiers unless followed by a string. Errors wrap ErrSyntax and name the
// 1-based byte position and the token.
//
// The forms SQL defines as never unknown are spelled with the nodes above so that NOT keeps
// its meaning on null rows: "x IS TRUE" is x = TRUE AND x IS NOT NULL, "x IS NOT TRUE" is
// x != TRUE OR x IS NULL (FALSE likewise), "x IS DISTINCT FROM v" is x != v OR x IS NULL,
// "x IS NOT DISTINCT FROM v" is x = v AND x IS NOT NULL. A column alone is x = TRUE, unknown
// on a null row as in SQL, and Bind refuses it on a column that is not boolean.
func Parse(s string) (Expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "expected AND, OR or end of input")
	}
	return e, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// isKw reports whether t is the keyword kw (upper case).
func isKw(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

func isOp(t token, op string) bool { return t.kind == tOp && t.text == op }

func (p *parser) errAt(t token, msg string) error {
	near := "end of input"
	if t.kind != tEOF {
		near = quoteTok(t.raw)
	}
	return syntaxErr(t.pos, near, msg)
}

func (p *parser) or(depth int) (Expr, error) {
	first, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	args := []Expr{first}
	for isKw(p.peek(), "OR") {
		p.next()
		e, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if len(args) == 1 {
		return first, nil
	}
	return &Or{Args: args}, nil
}

func (p *parser) and(depth int) (Expr, error) {
	first, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	args := []Expr{first}
	for isKw(p.peek(), "AND") {
		p.next()
		e, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if len(args) == 1 {
		return first, nil
	}
	return &And{Args: args}, nil
}

func (p *parser) unary(depth int) (Expr, error) {
	t := p.peek()
	if depth >= maxDepth {
		return nil, p.errAt(t, "expression nested too deeply")
	}
	if isKw(t, "NOT") {
		p.next()
		e, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Not{Arg: e}, nil
	}
	if isOp(t, "(") {
		p.next()
		e, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.next(); !isOp(c, ")") {
			return nil, p.errAt(c, "expected )")
		}
		return e, nil
	}
	return p.predicate()
}

// startsLiteral reports whether the next tokens begin a literal rather than a column path.
func (p *parser) startsLiteral() bool {
	t := p.peek()
	switch {
	case t.kind == tNumber || t.kind == tString || isOp(t, "-"):
		return true
	case isKw(t, "TRUE") || isKw(t, "FALSE") || isKw(t, "NULL"):
		return true
	case isKw(t, "DATE") || isKw(t, "TIMESTAMP") || isKw(t, "TIMESTAMPTZ"):
		return p.peekAt(1).kind == tString
	case isOp(t, "+"):
		return true
	case isKw(t, "CAST"):
		return isOp(p.peekAt(1), "(")
	}
	return false
}

var cmpOps = map[string]Op{"=": OpEq, "!=": OpNe, "<>": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}

// flip mirrors an operator for a literal written on the left: 5 < x is x > 5.
var flip = map[Op]Op{OpEq: OpEq, OpNe: OpNe, OpLt: OpGt, OpLe: OpGe, OpGt: OpLt, OpGe: OpLe}

// Flip is the operator with its operands swapped: a < b is b > a.
func (o Op) Flip() Op { return flip[o] }

func (p *parser) predicate() (Expr, error) {
	if t := p.peek(); t.kind == tIdent && spatialFuncs[strings.ToUpper(t.text)] != "" && isOp(p.peekAt(1), "(") {
		return p.spatialCall()
	}
	if p.startsLiteral() {
		lit, err := p.literal()
		if err != nil {
			return nil, err
		}
		t := p.next()
		op, ok := cmpOps[t.text]
		if t.kind != tOp || !ok {
			return nil, p.errAt(t, "expected a comparison operator after a literal")
		}
		col, err := p.path()
		if err != nil {
			return nil, err
		}
		return &Cmp{Op: flip[op], Col: col, Value: lit}, nil
	}
	col, err := p.path()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tEOF || isOp(t, ")") || isKw(t, "AND") || isKw(t, "OR") {
		return &Cmp{Op: OpEq, Col: col, Value: BoolLit(true)}, nil
	}
	t := p.next()
	if isOp(t, "&&") {
		env, err := p.envelope()
		if err != nil {
			return nil, err
		}
		return &Spatial{Rel: "bbox", Col: col, Env: env}, nil
	}
	if op, ok := cmpOps[t.text]; ok && t.kind == tOp {
		if !p.startsLiteral() {
			if k := p.peek().kind; k != tIdent && k != tQIdent {
				return nil, p.errAt(p.peek(), "expected a literal or a column name")
			}
			right, err := p.path()
			if err != nil {
				return nil, err
			}
			return &ColCmp{Op: op, Left: col, Right: right}, nil
		}
		lit, err := p.literal()
		if err != nil {
			return nil, err
		}
		return &Cmp{Op: op, Col: col, Value: lit}, nil
	}
	if isKw(t, "IS") {
		return p.isPredicate(col)
	}
	negate := false
	if isKw(t, "NOT") {
		negate = true
		t = p.next()
	}
	var e Expr
	switch {
	case isKw(t, "BETWEEN"):
		lo, err := p.literal()
		if err != nil {
			return nil, err
		}
		if a := p.next(); !isKw(a, "AND") {
			return nil, p.errAt(a, "expected AND in BETWEEN")
		}
		hi, err := p.literal()
		if err != nil {
			return nil, err
		}
		e = &Between{Col: col, Low: lo, High: hi}
	case isKw(t, "IN"):
		if o := p.next(); !isOp(o, "(") {
			return nil, p.errAt(o, "expected ( after IN")
		}
		var vals []Literal
		for {
			v, err := p.literal()
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			c := p.next()
			if isOp(c, ")") {
				break
			}
			if !isOp(c, ",") {
				return nil, p.errAt(c, "expected , or ) in IN list")
			}
		}
		e = &In{Col: col, Values: vals}
	case isKw(t, "LIKE") || isKw(t, "ILIKE"):
		s := p.next()
		if s.kind != tString {
			return nil, p.errAt(s, "expected a string pattern after "+strings.ToUpper(t.text))
		}
		e = &Like{Col: col, Pattern: s.text, Fold: isKw(t, "ILIKE")}
	default:
		if negate {
			return nil, p.errAt(t, "expected BETWEEN, IN, LIKE or ILIKE after NOT")
		}
		return nil, p.errAt(t, "expected a comparison operator, BETWEEN, IN, LIKE, ILIKE or IS")
	}
	if negate {
		e = &Not{Arg: e}
	}
	return e, nil
}

// isPredicate parses what follows "col IS": [NOT] NULL, [NOT] TRUE, [NOT] FALSE or [NOT]
// DISTINCT FROM literal, the last three spelled as Parse describes.
func (p *parser) isPredicate(col string) (Expr, error) {
	not := false
	if isKw(p.peek(), "NOT") {
		p.next()
		not = true
	}
	n := p.next()
	var lit Literal
	switch {
	case isKw(n, "NULL"):
		return &IsNull{Col: col, Not: not}, nil
	case isKw(n, "TRUE") || isKw(n, "FALSE"):
		lit = BoolLit(isKw(n, "TRUE"))
	case isKw(n, "DISTINCT"):
		if f := p.next(); !isKw(f, "FROM") {
			return nil, p.errAt(f, "expected FROM after DISTINCT")
		}
		if isKw(p.peek(), "NULL") {
			p.next()
			return &IsNull{Col: col, Not: !not}, nil
		}
		var err error
		if lit, err = p.literal(); err != nil {
			return nil, err
		}
		not = !not // IS DISTINCT FROM v is IS NOT v
	default:
		return nil, p.errAt(n, "expected NULL, TRUE, FALSE or DISTINCT FROM")
	}
	if not {
		return &Or{Args: []Expr{&Cmp{Op: OpNe, Col: col, Value: lit}, &IsNull{Col: col}}}, nil
	}
	return &And{Args: []Expr{&Cmp{Op: OpEq, Col: col, Value: lit}, &IsNull{Col: col, Not: true}}}, nil
}

// path parses ident { '.' ident } and returns the segments joined with '.'.
func (p *parser) path() (string, error) {
	var segs []string
	for {
		t := p.next()
		switch {
		case t.kind == tQIdent:
			segs = append(segs, t.text)
		case t.kind == tIdent && (!keywords[strings.ToUpper(t.text)] ||
			(isKw(t, "DATE") || isKw(t, "TIMESTAMP") || isKw(t, "TIMESTAMPTZ")) && p.peek().kind != tString):
			segs = append(segs, t.text)
		default:
			return "", p.errAt(t, "expected a column name")
		}
		if !isOp(p.peek(), ".") {
			return strings.Join(segs, "."), nil
		}
		p.next()
	}
}

// literal parses one literal and the casts that follow it; DATE and TIMESTAMP strings are
// validated here so that errors point at them.
func (p *parser) literal() (Literal, error) {
	l, err := p.baseLiteral()
	for err == nil && isOp(p.peek(), "::") {
		p.next()
		l, err = p.cast(l)
	}
	return l, err
}

// cast reads a type name after :: or AS and gives it to l (the package comment).
func (p *parser) cast(l Literal) (Literal, error) {
	t := p.next()
	name := strings.ToUpper(t.text)
	if t.kind != tIdent {
		return Literal{}, p.errAt(t, "expected a type name")
	}
	if name == "TIMESTAMP" && isKw(p.peek(), "WITH") {
		for _, w := range []string{"WITH", "TIME", "ZONE"} {
			if n := p.next(); !isKw(n, w) {
				return Literal{}, p.errAt(n, "expected TIMESTAMP WITH TIME ZONE")
			}
		}
		name = "TIMESTAMPTZ"
	}
	var want LitKind
	switch name {
	case "DATE":
		want = LitDate
	case "TIMESTAMP", "TIMESTAMPTZ":
		want = LitTimestamp
	case "VARCHAR", "TEXT", "STRING":
		want = LitString
	default:
		return Literal{}, p.errAt(t, "a cast to "+name+" is not supported: write the literal in its type")
	}
	switch {
	case l.Kind == want:
		return l, nil
	case l.Kind == LitString && want == LitDate:
		if _, err := parseDateTime(l.Text, true); err != nil {
			return Literal{}, p.errAt(t, "'"+l.Text+"'::DATE: "+err.Error())
		}
		return DateLit(l.Text), nil
	case (l.Kind == LitString || l.Kind == LitDate) && want == LitTimestamp:
		if _, err := parseDateTime(l.Text, false); err != nil {
			return Literal{}, p.errAt(t, "'"+l.Text+"'::TIMESTAMP: "+err.Error())
		}
		return TimestampLit(l.Text), nil
	}
	return Literal{}, p.errAt(t, "a cast of "+l.String()+" to "+name+" is not supported")
}

func (p *parser) baseLiteral() (Literal, error) {
	t := p.next()
	switch {
	case isOp(t, "-") || isOp(t, "+"):
		n := p.next()
		if n.kind != tNumber {
			return Literal{}, p.errAt(n, "expected a number after "+t.text)
		}
		if t.text == "+" {
			return numLit(n.text), nil
		}
		return numLit("-" + n.text), nil
	case isKw(t, "CAST") && isOp(p.peek(), "("):
		p.next()
		l, err := p.literal()
		if err != nil {
			return Literal{}, err
		}
		if as := p.next(); !isKw(as, "AS") {
			return Literal{}, p.errAt(as, "expected AS")
		}
		if l, err = p.cast(l); err != nil {
			return Literal{}, err
		}
		if c := p.next(); !isOp(c, ")") {
			return Literal{}, p.errAt(c, "expected )")
		}
		return l, nil
	case t.kind == tNumber:
		return numLit(t.text), nil
	case t.kind == tString:
		return StrLit(t.text), nil
	case isKw(t, "TRUE"):
		return BoolLit(true), nil
	case isKw(t, "FALSE"):
		return BoolLit(false), nil
	case isKw(t, "NULL"):
		return Literal{}, p.errAt(t, "NULL is only allowed in IS [NOT] NULL")
	case isKw(t, "DATE") || isKw(t, "TIMESTAMP") || isKw(t, "TIMESTAMPTZ"):
		s := p.next()
		if s.kind != tString {
			return Literal{}, p.errAt(s, "expected a string after "+strings.ToUpper(t.text))
		}
		if isKw(t, "DATE") {
			if _, err := parseDateTime(s.text, true); err != nil {
				return Literal{}, p.errAt(s, err.Error())
			}
			return DateLit(s.text), nil
		}
		if _, err := parseDateTime(s.text, false); err != nil {
			return Literal{}, p.errAt(s, err.Error())
		}
		return TimestampLit(s.text), nil
	}
	return Literal{}, p.errAt(t, "expected a literal")
}

// numLit classifies numeric text as an integer or a float literal.
func numLit(text string) Literal {
	if strings.ContainsAny(text, ".eE") {
		return FloatLit(text)
	}
	return IntLit(text)
}
