package prune

import (
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
)

// tokKind classifies SQL tokens.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier or keyword (keywords are recognised by the parser)
	tQIdent         // "quoted identifier"; text is unescaped
	tNumber         // unsigned numeric literal text
	tString         // 'string'; text is unescaped
	tOp             // = != <> < <= > >= ( ) , . - + :: &&
)

type token struct {
	kind tokKind
	text string // unescaped text for strings and quoted identifiers, raw otherwise
	raw  string // the source text, for error messages
	pos  int    // byte offset in the input
}

// maxNumberLen and maxExponent bound numeric literals so that exact (big.Rat) coercion of a
// hostile literal cannot consume unbounded memory or time.
const (
	maxNumberLen = 400
	maxExponent  = 400
)

// lex splits s into tokens. It fails on unterminated strings/identifiers, malformed numbers
// and characters outside the grammar.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: s[i:j], raw: s[i:j], pos: i})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j, err := lexNumber(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tNumber, text: s[i:j], raw: s[i:j], pos: i})
			i = j
		case c == '\'' || c == '"':
			text, j, ok := lexQuoted(s, i)
			if !ok {
				what := "string"
				if c == '"' {
					what = "quoted identifier"
				}
				return nil, syntaxErr(i, quoteTok(s[i:]), "unterminated "+what)
			}
			k := tString
			if c == '"' {
				k = tQIdent
				if text == "" {
					return nil, syntaxErr(i, quoteTok(s[i:j]), "empty quoted identifier")
				}
			}
			toks = append(toks, token{kind: k, text: text, raw: s[i:j], pos: i})
			i = j
		default:
			op := ""
			for _, o := range []string{"&&", "::", "<=", ">=", "<>", "!=", "=", "<", ">", "(", ")", ",", ".", "-", "+"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				r := []rune(s[i:min(len(s), i+4)])
				return nil, syntaxErr(i, errf.Sprintf("%q", string(r[:1])), "unexpected character")
			}
			toks = append(toks, token{kind: tOp, text: op, raw: op, pos: i})
			i += len(op)
		}
	}
	toks = append(toks, token{kind: tEOF, pos: len(s)})
	return toks, nil
}

// lexNumber scans digits [. digits] [(e|E) [+-] digits] starting at i and returns the end.
func lexNumber(s string, i int) (int, error) {
	j := i
	digits := func() int {
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j - k
	}
	n := digits()
	if j < len(s) && s[j] == '.' {
		j++
		n += digits()
	}
	if n == 0 {
		return 0, syntaxErr(i, quoteTok(s[i:j]), "malformed number")
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		if digits() == 0 {
			return 0, syntaxErr(i, quoteTok(s[i:j]), "malformed exponent")
		}
		exp := strings.TrimLeft(s[k:j], "0")
		if len(exp) > 3 || len(exp) == 3 && exp > strconv.Itoa(maxExponent) {
			return 0, syntaxErr(i, quoteTok(s[i:j]), errf.Sprintf("exponent beyond ±%d", maxExponent))
		}
	}
	if j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '.') {
		for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		return 0, syntaxErr(i, quoteTok(s[i:j]), "malformed number")
	}
	if j-i > maxNumberLen {
		return 0, syntaxErr(i, quoteTok(s[i:j]), errf.Sprintf("number longer than %d characters", maxNumberLen))
	}
	return j, nil
}

// lexQuoted scans a string or identifier quoted with s[i], where a doubled quote is an
// escaped quote. It returns the unescaped text and the end offset.
func lexQuoted(s string, i int) (string, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

// quoteTok shortens long token text for error messages.
func quoteTok(s string) string {
	if len(s) > 20 {
		s = s[:20] + "..."
	}
	return errf.Sprintf("%q", s)
}

// syntaxErr builds the error for a token at byte offset pos; near is already quoted.
func syntaxErr(pos int, near, msg string) error {
	return errf.Errorf("%w at position %d near %s: %s", ErrSyntax, pos+1, near, msg)
}
