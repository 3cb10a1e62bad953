package prune

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func cmpE(op Op, col string, l Literal) *Cmp { return &Cmp{Op: op, Col: col, Value: l} }

func Test_Parse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Expr
	}{
		{name: "int eq", in: "a = 1", want: cmpE(OpEq, "a", IntLit("1"))},
		{name: "dotted path", in: "a.b.c >= -5", want: cmpE(OpGe, "a.b.c", IntLit("-5"))},
		{name: "diamond", in: "x <> 'it''s'", want: cmpE(OpNe, "x", StrLit("it's"))},
		{name: "bang eq", in: "x != 2.5e-3", want: cmpE(OpNe, "x", FloatLit("2.5e-3"))},
		{name: "leading dot float", in: "x < .5", want: cmpE(OpLt, "x", FloatLit(".5"))},
		{name: "literal on left flips", in: "5 < x", want: cmpE(OpGt, "x", IntLit("5"))},
		{name: "negative spaced", in: "x > - 7", want: cmpE(OpGt, "x", IntLit("-7"))},
		{name: "bool", in: "flag = true", want: cmpE(OpEq, "flag", BoolLit(true))},
		{name: "date literal", in: "d >= DATE '2024-01-01'", want: cmpE(OpGe, "d", DateLit("2024-01-01"))},
		{name: "timestamp literal", in: "ts < timestamp '2026-10-01T09:00:00Z'", want: cmpE(OpLt, "ts", TimestampLit("2026-10-01T09:00:00Z"))},
		{name: "date as column", in: "date = 1", want: cmpE(OpEq, "date", IntLit("1"))},
		{name: "quoted ident", in: `"weird col"."x""y" = 1`, want: cmpE(OpEq, `weird col.x"y`, IntLit("1"))},
		{name: "quoted keyword", in: `"and" = 1`, want: cmpE(OpEq, "and", IntLit("1"))},
		{name: "between", in: "x BETWEEN 1 AND 10", want: &Between{Col: "x", Low: IntLit("1"), High: IntLit("10")}},
		{name: "not between", in: "x NOT BETWEEN 1 AND 10", want: &Not{Arg: &Between{Col: "x", Low: IntLit("1"), High: IntLit("10")}}},
		{name: "in", in: "x IN (1, 2.0, 'a')", want: &In{Col: "x", Values: []Literal{IntLit("1"), FloatLit("2.0"), StrLit("a")}}},
		{name: "not in", in: "x not in (1)", want: &Not{Arg: &In{Col: "x", Values: []Literal{IntLit("1")}}}},
		{name: "is null", in: "x IS NULL", want: &IsNull{Col: "x"}},
		{name: "is not null", in: "x is not null", want: &IsNull{Col: "x", Not: true}},
		{name: "like", in: "s LIKE 'ab%'", want: &Like{Col: "s", Pattern: "ab%"}},
		{name: "not like", in: "s NOT LIKE 'ab%'", want: &Not{Arg: &Like{Col: "s", Pattern: "ab%"}}},
		{name: "ilike", in: "s ILIKE '%Ab%'", want: &Like{Col: "s", Pattern: "%Ab%", Fold: true}},
		{name: "not ilike", in: "s not ilike 'a_'", want: &Not{Arg: &Like{Col: "s", Pattern: "a_", Fold: true}}},
		{name: "bare column", in: "flag", want: cmpE(OpEq, "flag", BoolLit(true))},
		{name: "two columns", in: "a.b < \"c d\"", want: &ColCmp{Op: OpLt, Left: "a.b", Right: "c d"}},
		{name: "two columns, date as column", in: "x <> date", want: &ColCmp{Op: OpNe, Left: "x", Right: "date"}},
		{name: "bare columns", in: "NOT a.flag OR (b AND c = 1)", want: &Or{Args: []Expr{
			&Not{Arg: cmpE(OpEq, "a.flag", BoolLit(true))},
			&And{Args: []Expr{cmpE(OpEq, "b", BoolLit(true)), cmpE(OpEq, "c", IntLit("1"))}},
		}}},
		{name: "is true", in: "f IS TRUE", want: &And{Args: []Expr{cmpE(OpEq, "f", BoolLit(true)), &IsNull{Col: "f", Not: true}}}},
		{name: "is not false", in: "f is not false", want: &Or{Args: []Expr{cmpE(OpNe, "f", BoolLit(false)), &IsNull{Col: "f"}}}},
		{name: "is distinct from", in: "x IS DISTINCT FROM 'a'", want: &Or{Args: []Expr{cmpE(OpNe, "x", StrLit("a")), &IsNull{Col: "x"}}}},
		{name: "is not distinct from", in: "x IS NOT DISTINCT FROM -2", want: &And{Args: []Expr{cmpE(OpEq, "x", IntLit("-2")), &IsNull{Col: "x", Not: true}}}},
		{name: "is distinct from null", in: "x IS DISTINCT FROM NULL", want: &IsNull{Col: "x", Not: true}},
		{name: "is not distinct from null", in: "x IS NOT DISTINCT FROM NULL", want: &IsNull{Col: "x"}},
		{name: "keyword-like columns", in: "ilike ILIKE 'a' AND distinct", want: &And{Args: []Expr{
			&Like{Col: "ilike", Pattern: "a", Fold: true}, cmpE(OpEq, "distinct", BoolLit(true))}}},
		{name: "cast string to date", in: "d >= '2024-01-01'::DATE", want: cmpE(OpGe, "d", DateLit("2024-01-01"))},
		{name: "CAST to date", in: "CAST('2024-01-01' AS date) < d", want: cmpE(OpGt, "d", DateLit("2024-01-01"))},
		{name: "cast to timestamptz", in: "t = '2024-01-01 10:00:00+02'::TIMESTAMPTZ", want: cmpE(OpEq, "t", TimestampLit("2024-01-01 10:00:00+02"))},
		{name: "with time zone", in: "t < CAST('2024-01-01' AS TIMESTAMP WITH TIME ZONE)", want: cmpE(OpLt, "t", TimestampLit("2024-01-01"))},
		{name: "date to timestamp", in: "t < DATE '2024-01-01'::TIMESTAMP", want: cmpE(OpLt, "t", TimestampLit("2024-01-01"))},
		{name: "cast kept", in: "s IN ('a'::VARCHAR, CAST('b' AS text), DATE '2024-01-02'::DATE)", want: &In{Col: "s", Values: []Literal{StrLit("a"), StrLit("b"), DateLit("2024-01-02")}}},
		{name: "timestamptz literal", in: "t BETWEEN TIMESTAMPTZ '2024-01-01 00:00:00+00' AND +5", want: &Between{Col: "t", Low: TimestampLit("2024-01-01 00:00:00+00"), High: IntLit("5")}},
		{name: "cast column name", in: "cast = 1 AND timestamptz > 2", want: &And{Args: []Expr{cmpE(OpEq, "cast", IntLit("1")), cmpE(OpGt, "timestamptz", IntLit("2"))}}},
		{name: "precedence", in: "a = 1 OR b = 2 AND NOT c = 3", want: &Or{Args: []Expr{
			cmpE(OpEq, "a", IntLit("1")),
			&And{Args: []Expr{cmpE(OpEq, "b", IntLit("2")), &Not{Arg: cmpE(OpEq, "c", IntLit("3"))}}},
		}}},
		{name: "flattened and", in: "a=1 AND b=2 AND c=3", want: &And{Args: []Expr{
			cmpE(OpEq, "a", IntLit("1")), cmpE(OpEq, "b", IntLit("2")), cmpE(OpEq, "c", IntLit("3"))}}},
		{name: "parens keep nesting", in: "(a=1 AND b=2) AND c=3", want: &And{Args: []Expr{
			&And{Args: []Expr{cmpE(OpEq, "a", IntLit("1")), cmpE(OpEq, "b", IntLit("2"))}}, cmpE(OpEq, "c", IntLit("3"))}}},
		{name: "parens override", in: "(a=1 OR b=2) AND c=3", want: &And{Args: []Expr{
			&Or{Args: []Expr{cmpE(OpEq, "a", IntLit("1")), cmpE(OpEq, "b", IntLit("2"))}}, cmpE(OpEq, "c", IntLit("3"))}}},
		{name: "not not", in: "NOT NOT a IS NULL", want: &Not{Arg: &Not{Arg: &IsNull{Col: "a"}}}},
		{name: "huge int kept exact", in: "x = 123456789012345678901234567890", want: cmpE(OpEq, "x", IntLit("123456789012345678901234567890"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			again, err := Parse(got.String())
			require.NoError(t, err, got.String())
			require.Equal(t, got, again, got.String())
			js, err := json.Marshal(got)
			require.NoError(t, err)
			back, err := ParseJSON(js)
			require.NoError(t, err, string(js))
			require.Equal(t, got, back, string(js))
		})
	}
}

func Test_Parse_errors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "empty", in: "", want: `prune: syntax error at position 1 near end of input: expected a column name`},
		{name: "missing literal", in: "a = ", want: `prune: syntax error at position 5 near end of input: expected a literal or a column name`},
		{name: "dangling and", in: "a = 1 AND", want: `prune: syntax error at position 10 near end of input: expected a column name`},
		{name: "unterminated string", in: "a = 'x", want: `prune: syntax error at position 5 near "'x": unterminated string`},
		{name: "unterminated ident", in: `"a = 1`, want: `prune: syntax error at position 1 near "\"a = 1": unterminated quoted identifier`},
		{name: "bad char", in: "a = 1 ; b", want: `prune: syntax error at position 7 near ";": unexpected character`},
		{name: "missing paren", in: "(a = 1", want: `prune: syntax error at position 7 near end of input: expected )`},
		{name: "extra paren", in: "a = 1)", want: `prune: syntax error at position 6 near ")": expected AND, OR or end of input`},
		{name: "null compare", in: "a = NULL", want: `prune: syntax error at position 5 near "NULL": NULL is only allowed in IS [NOT] NULL`},
		{name: "bad date", in: "d = DATE '2024-02-30'", want: `prune: syntax error at position 10 near "'2024-02-30'": date out of range`},
		{name: "bad timestamp", in: "d = TIMESTAMP '2024-01-01X'", want: `prune: syntax error at position 15 near "'2024-01-01X'": invalid date/time (want YYYY-MM-DD[Thh:mm[:ss[.fff]]][Z|±hh:mm])`},
		{name: "cast to int", in: "x = '1'::INTEGER", want: `prune: syntax error at position 10 near "INTEGER": a cast to INTEGER is not supported: write the literal in its type`},
		{name: "cast number to date", in: "x = 1::DATE", want: `prune: syntax error at position 8 near "DATE": a cast of 1 to DATE is not supported`},
		{name: "cast bad date", in: "x = CAST('2024-13-01' AS DATE)", want: `prune: syntax error at position 26 near "DATE": '2024-13-01'::DATE: date out of range`},
		{name: "cast without AS", in: "x = CAST('a' VARCHAR)", want: `prune: syntax error at position 14 near "VARCHAR": expected AS`},
		{name: "cast unclosed", in: "x = CAST('a' AS VARCHAR", want: `prune: syntax error at position 24 near end of input: expected )`},
		{name: "cast of column", in: "x::DATE = '2024-01-01'", want: `prune: syntax error at position 2 near "::": expected a comparison operator, BETWEEN, IN, LIKE, ILIKE or IS`},
		{name: "half time zone", in: "t = '2024-01-01'::TIMESTAMP WITH ZONE", want: `prune: syntax error at position 34 near "ZONE": expected TIMESTAMP WITH TIME ZONE`},
		{name: "plus without number", in: "x = +'1'", want: `prune: syntax error at position 6 near "'1'": expected a number after +`},
		{name: "keyword as column", in: "and = 1", want: `prune: syntax error at position 1 near "and": expected a column name`},
		{name: "malformed number", in: "a = 1x", want: `prune: syntax error at position 5 near "1x": malformed number`},
		{name: "malformed exponent", in: "a = 1e", want: `prune: syntax error at position 5 near "1e": malformed exponent`},
		{name: "huge exponent", in: "a = 1e401", want: `prune: syntax error at position 5 near "1e401": exponent beyond ±400`},
		{name: "is without null", in: "a IS 1", want: `prune: syntax error at position 6 near "1": expected NULL, TRUE, FALSE or DISTINCT FROM`},
		{name: "distinct without from", in: "a IS DISTINCT 1", want: `prune: syntax error at position 15 near "1": expected FROM after DISTINCT`},
		{name: "not without op", in: "a NOT = 1", want: `prune: syntax error at position 7 near "=": expected BETWEEN, IN, LIKE or ILIKE after NOT`},
		{name: "ilike needs string", in: "a ilike 1", want: `prune: syntax error at position 9 near "1": expected a string pattern after ILIKE`},
		{name: "in needs paren", in: "a IN 1", want: `prune: syntax error at position 6 near "1": expected ( after IN`},
		{name: "empty in", in: "a IN ()", want: `prune: syntax error at position 7 near ")": expected a literal`},
		{name: "like needs string", in: "a LIKE 1", want: `prune: syntax error at position 8 near "1": expected a string pattern after LIKE`},
		{name: "between needs and", in: "a BETWEEN 1 OR 2", want: `prune: syntax error at position 13 near "OR": expected AND in BETWEEN`},
		{name: "column vs keyword", in: "a = AND", want: `prune: syntax error at position 5 near "AND": expected a column name`},
		{name: "column then literal", in: "a 1", want: `prune: syntax error at position 3 near "1": expected a comparison operator, BETWEEN, IN, LIKE, ILIKE or IS`},
		{name: "empty quoted ident", in: `"" = 1`, want: `prune: syntax error at position 1 near "\"\"": empty quoted identifier`},
		{name: "literal both sides", in: "1 = 2", want: `prune: syntax error at position 5 near "2": expected a column name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			require.ErrorIs(t, err, ErrSyntax)
			require.Equal(t, tc.want, err.Error())
		})
	}
}

func Test_Parse_depth(t *testing.T) {
	s := ""
	for i := 0; i < 1000; i++ {
		s += "("
	}
	_, err := Parse(s + "a = 1")
	require.ErrorContains(t, err, "nested too deeply")
}

func Test_String(t *testing.T) {
	tests := []struct {
		name string
		e    Expr
		want string
	}{
		{name: "keyword path quoted", e: cmpE(OpEq, "date.x y", DateLit("2024-01-01")), want: `"date"."x y" = DATE '2024-01-01'`},
		{name: "or inside and", e: &And{Args: []Expr{&Or{Args: []Expr{&IsNull{Col: "a"}, &IsNull{Col: "b"}}}, &IsNull{Col: "c"}}},
			want: "(a IS NULL OR b IS NULL) AND c IS NULL"},
		{name: "and inside or", e: &Or{Args: []Expr{&And{Args: []Expr{&IsNull{Col: "a"}, &IsNull{Col: "b"}}}, &IsNull{Col: "c"}}},
			want: "a IS NULL AND b IS NULL OR c IS NULL"},
		{name: "not", e: &Not{Arg: &In{Col: "x", Values: []Literal{IntLit("1"), StrLit("o'k")}}}, want: "NOT (x IN (1, 'o''k'))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.e.String())
			back, err := Parse(tc.want)
			require.NoError(t, err)
			require.Equal(t, tc.e, back)
		})
	}
}

func Test_Columns(t *testing.T) {
	e, err := Parse("b = 1 AND (a IS NULL OR b > 2) AND NOT c.d LIKE 'x%'")
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a", "c.d"}, Columns(e))
}

func Test_ParseJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Expr
		err  string
	}{
		{name: "and", in: `{"op":"and","args":[{"op":"=","col":"a.b","value":1},{"op":"is null","col":"c"}]}`,
			want: &And{Args: []Expr{cmpE(OpEq, "a.b", IntLit("1")), &IsNull{Col: "c"}}}},
		{name: "single arg and unwraps", in: `{"op":"and","args":[{"op":"<>","col":"a","value":"x"}]}`, want: cmpE(OpNe, "a", StrLit("x"))},
		{name: "typed literals", in: `{"op":"between","col":"d","low":{"date":"2024-01-01"},"high":{"timestamp":"2024-01-02T00:00:00Z"}}`,
			want: &Between{Col: "d", Low: DateLit("2024-01-01"), High: TimestampLit("2024-01-02T00:00:00Z")}},
		{name: "exact big number", in: `{"op":"in","col":"x","values":[18446744073709551616, 1.005, {"number":".5"}, true]}`,
			want: &In{Col: "x", Values: []Literal{IntLit("18446744073709551616"), FloatLit("1.005"), FloatLit(".5"), BoolLit(true)}}},
		{name: "like", in: `{"op":"like","col":"s","value":"a_%"}`, want: &Like{Col: "s", Pattern: "a_%"}},
		{name: "ilike", in: `{"op":"ilike","col":"s","value":"%É%"}`, want: &Like{Col: "s", Pattern: "%É%", Fold: true}},
		{name: "two columns", in: `{"op":"<=","col":"a","value":{"col":"b.c"}}`, want: &ColCmp{Op: OpLe, Left: "a", Right: "b.c"}},
		{name: "two columns, empty", in: `{"op":"<=","col":"a","value":{"col":""}}`, err: `prune: invalid JSON expression at value.col: want a non-empty string or {"base64":…}`},
		{name: "not", in: `{"op":"not","args":[{"op":"is not null","col":"s"}]}`, want: &Not{Arg: &IsNull{Col: "s", Not: true}}},
		{name: "unknown field", in: `{"op":"=","column":"a","value":1}`, err: `prune: invalid JSON expression: unknown member "column"`},
		{name: "null literal", in: `{"op":"=","col":"a","value":null}`, err: `prune: invalid JSON expression at value: unsupported literal "null" (null is only allowed through "is null")`},
		{name: "missing value", in: `{"op":"<","col":"a"}`, err: `prune: invalid JSON expression: op "<" needs "value"`},
		{name: "bad nested", in: `{"op":"or","args":[{"op":"is null","col":"a"},{"op":"~","col":"a"}]}`, err: `prune: invalid JSON expression at args[1]: unknown op "~"`},
		{name: "bad date", in: `{"op":"=","col":"d","value":{"date":"2024-1-1"}}`, err: `prune: invalid JSON expression at value: date "2024-1-1": invalid date/time (want YYYY-MM-DD[Thh:mm[:ss[.fff]]][Z|±hh:mm])`},
		{name: "empty in", in: `{"op":"in","col":"x","values":[]}`, err: `prune: invalid JSON expression: in needs at least one value`},
		{name: "not two args", in: `{"op":"not","args":[{"op":"is null","col":"a"},{"op":"is null","col":"a"}]}`, err: `prune: invalid JSON expression: not takes exactly one arg`},
		{name: "huge exponent", in: `{"op":"=","col":"a","value":1e999}`, err: `prune: invalid JSON expression at value: invalid number "1e999"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if tc.err != "" {
				require.ErrorIs(t, err, ErrJSON)
				require.Equal(t, tc.err, err.Error())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			js, err := json.Marshal(got)
			require.NoError(t, err)
			back, err := ParseJSON(js)
			require.NoError(t, err)
			require.True(t, reflect.DeepEqual(got, back), string(js))
		})
	}
}

func Test_MarshalJSON_form(t *testing.T) {
	e, err := Parse("a.b = 1 AND NOT (d >= DATE '2024-01-01' OR x IN (.5, 'q'))")
	require.NoError(t, err)
	js, err := e.MarshalJSON()
	require.NoError(t, err)
	require.Equal(t, `{"op":"and","args":[{"op":"=","col":"a.b","value":1},{"op":"not","args":[{"op":"or","args":[{"op":">=","col":"d","value":{"date":"2024-01-01"}},{"op":"in","col":"x","values":[{"number":".5"},"q"]}]}]}]}`, string(js))
}
