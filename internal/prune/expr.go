package prune

import (
	"strings"
)

// Expr is a node of an unbound predicate tree, as produced by Parse or ParseJSON. It is plain
// data: build one directly, print it with String (SQL that parses back to the same tree) or
// MarshalJSON (the wire form), and bind it to a schema with Bind before evaluating.
//
// The concrete types are *And, *Or, *Not, *Cmp, *ColCmp, *Between, *In, *IsNull, *Like and
// *Spatial.
type Expr interface {
	String() string
	MarshalJSON() ([]byte, error)
	isExpr()
}

// And is true when every argument is true (SQL three-valued logic). Args has at least two
// elements; a parenthesised nested And stays a separate node.
type And struct{ Args []Expr }

// Or is true when some argument is true (SQL three-valued logic). Args has at least two elements.
type Or struct{ Args []Expr }

// Not negates its argument; NOT of unknown (NULL) is unknown.
type Not struct{ Arg Expr }

// Op is a comparison operator.
type Op string

const (
	OpEq Op = "="
	OpNe Op = "!=" // SQL "<>" parses to this
	OpLt Op = "<"
	OpLe Op = "<="
	OpGt Op = ">"
	OpGe Op = ">="
)

// Cmp compares a column with a literal: Col Op Value. A literal written on the left in SQL is
// normalised to this form (5 < x becomes x > 5).
type Cmp struct {
	Op    Op
	Col   string
	Value Literal
}

// ColCmp compares two columns of one row: Left Op Right, unknown when either is null. Both
// must be comparable without a cast (Bind says which are); statistics prune it where the two
// columns' ranges decide it, dictionaries and Bloom filters do not.
type ColCmp struct {
	Op          Op
	Left, Right string
}

// Between is Col BETWEEN Low AND High, i.e. Col >= Low AND Col <= High (inclusive).
type Between struct {
	Col       string
	Low, High Literal
}

// In is Col IN (Values...), i.e. an OR of equalities. Values is non-empty.
type In struct {
	Col    string
	Values []Literal
}

// IsNull is Col IS NULL, or Col IS NOT NULL when Not is set. It is never unknown.
type IsNull struct {
	Col string
	Not bool
}

// Like is Col LIKE Pattern on a Bytes column: '%' matches any run of characters and '_' one
// UTF-8 character (one byte when the data is not valid UTF-8). There is no escape character.
// Statistics, dictionaries and row filters evaluate it; only the literal prefix before the
// first wildcard narrows statistics ranges ('abc%' keeps chunks whose range meets
// ['abc', 'abd')). A pattern without wildcards is an equality and also uses Bloom filters.
//
// Fold makes it ILIKE: value and pattern are compared in lower case (Unicode simple case
// mapping, as DuckDB's and PostgreSQL's lower()). Dictionaries and row filters evaluate it;
// statistics and Bloom filters do not, since case variants of a prefix are not one byte range
// (the Kelvin sign lowers to 'k' and sorts after 'z').
type Like struct {
	Col     string
	Pattern string
	Fold    bool
}

func (*And) isExpr()     {}
func (*Or) isExpr()      {}
func (*Not) isExpr()     {}
func (*Cmp) isExpr()     {}
func (*ColCmp) isExpr()  {}
func (*Between) isExpr() {}
func (*In) isExpr()      {}
func (*IsNull) isExpr()  {}
func (*Like) isExpr()    {}

// LitKind is the syntactic kind of a literal; Bind interprets it against the column type.
type LitKind uint8

const (
	LitInt       LitKind = iota + 1 // Text: optional '-', decimal digits (any size)
	LitFloat                        // Text: decimal number with '.' and/or exponent (exact, any size)
	LitString                       // Text: the string's bytes
	LitBool                         // Bool
	LitDate                         // Text: YYYY-MM-DD (validated by the parser)
	LitTimestamp                    // Text: ISO 8601 date-time, optional zone (validated by the parser)
)

// Literal is a constant as written. Numbers keep their exact text so that Bind can coerce
// without rounding (99999999999 against INT32, 2.5 against an integer column, 1.005 against
// DECIMAL(9,2)).
type Literal struct {
	Kind LitKind
	Text string
	Bool bool
}

// Int, Float, Str, Bool, Date and Timestamp build literals (Int and Float take the decimal text).
func IntLit(text string) Literal   { return Literal{Kind: LitInt, Text: text} }
func FloatLit(text string) Literal { return Literal{Kind: LitFloat, Text: text} }
func StrLit(s string) Literal      { return Literal{Kind: LitString, Text: s} }
func BoolLit(b bool) Literal       { return Literal{Kind: LitBool, Bool: b} }
func DateLit(s string) Literal     { return Literal{Kind: LitDate, Text: s} }
func TimestampLit(s string) Literal {
	return Literal{Kind: LitTimestamp, Text: s}
}

// String renders the literal in SQL.
func (l Literal) String() string {
	switch l.Kind {
	case LitInt, LitFloat:
		return l.Text
	case LitString:
		return quoteString(l.Text)
	case LitBool:
		if l.Bool {
			return "TRUE"
		}
		return "FALSE"
	case LitDate:
		return "DATE " + quoteString(l.Text)
	case LitTimestamp:
		return "TIMESTAMP " + quoteString(l.Text)
	}
	return "<invalid literal>"
}

func (l LitKind) String() string {
	switch l {
	case LitInt:
		return "integer"
	case LitFloat:
		return "float"
	case LitString:
		return "string"
	case LitBool:
		return "boolean"
	case LitDate:
		return "date"
	case LitTimestamp:
		return "timestamp"
	}
	return "invalid"
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// keywords are the reserved words; identifiers spelling one are quoted when printed.
var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true, "IS": true, "NULL": true,
	"LIKE": true, "ST_MAKEENVELOPE": true, "ST_INTERSECTS": true, "ST_WITHIN": true, "ST_CONTAINS": true, "TRUE": true, "FALSE": true, "DATE": true, "TIMESTAMP": true,
}

// quotePath prints a dotted column path, quoting each segment that is not a plain identifier.
// A path with an empty segment ("a..b", ".x") prints as one quoted identifier, which parses
// back to the same string.
func quotePath(path string) string {
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" {
			return `"` + strings.ReplaceAll(path, `"`, `""`) + `"`
		}
	}
	for i, s := range segs {
		if !isPlainIdent(s) || keywords[strings.ToUpper(s)] {
			segs[i] = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return strings.Join(segs, ".")
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (e *And) String() string {
	return joinArgs(e.Args, " AND ", func(x Expr) bool { _, ok := x.(*And); return ok || isOr(x) })
}
func (e *Or) String() string  { return joinArgs(e.Args, " OR ", isOr) }
func (e *Not) String() string { return "NOT (" + e.Arg.String() + ")" }
func (e *Cmp) String() string { return quotePath(e.Col) + " " + string(e.Op) + " " + e.Value.String() }
func (e *ColCmp) String() string {
	return quotePath(e.Left) + " " + string(e.Op) + " " + quotePath(e.Right)
}
func (e *Between) String() string {
	return quotePath(e.Col) + " BETWEEN " + e.Low.String() + " AND " + e.High.String()
}
func (e *In) String() string {
	var b strings.Builder
	b.WriteString(quotePath(e.Col))
	b.WriteString(" IN (")
	for i, v := range e.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.String())
	}
	b.WriteString(")")
	return b.String()
}
func (e *IsNull) String() string {
	if e.Not {
		return quotePath(e.Col) + " IS NOT NULL"
	}
	return quotePath(e.Col) + " IS NULL"
}
func (e *Like) String() string {
	if e.Fold {
		return quotePath(e.Col) + " ILIKE " + quoteString(e.Pattern)
	}
	return quotePath(e.Col) + " LIKE " + quoteString(e.Pattern)
}

func isOr(x Expr) bool { _, ok := x.(*Or); return ok }

// joinArgs prints args separated by sep, parenthesising those for which paren holds, so that
// the printed text parses back to the same (unflattened) tree.
func joinArgs(args []Expr, sep string, paren func(Expr) bool) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		if paren(a) {
			b.WriteString("(" + a.String() + ")")
		} else {
			b.WriteString(a.String())
		}
	}
	return b.String()
}

// Columns returns the distinct column paths e references, in order of first appearance.
func Columns(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(Expr)
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	walk = func(e Expr) {
		switch e := e.(type) {
		case *And:
			for _, a := range e.Args {
				walk(a)
			}
		case *Or:
			for _, a := range e.Args {
				walk(a)
			}
		case *Not:
			walk(e.Arg)
		case *Cmp:
			add(e.Col)
		case *ColCmp:
			add(e.Left)
			add(e.Right)
		case *Between:
			add(e.Col)
		case *In:
			add(e.Col)
		case *IsNull:
			add(e.Col)
		case *Like:
			add(e.Col)
		case *Spatial:
			add(e.Col)
		}
	}
	walk(e)
	return out
}
