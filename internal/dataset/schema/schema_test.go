package schema

import (
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

var (
	i32  = Type{Kind: Int32}
	i64  = Type{Kind: Int64}
	f32  = Type{Kind: Float32}
	f64  = Type{Kind: Float64}
	str  = Type{Kind: String}
	date = Type{Kind: Date}
	tsMs = Type{Kind: Timestamp, Unit: prune.Milli, UTC: true}
	tsUs = Type{Kind: Timestamp, Unit: prune.Micro, UTC: true}
	tsNs = Type{Kind: Timestamp, Unit: prune.Nano, UTC: true}
	ntz  = Type{Kind: Timestamp, Unit: prune.Micro}
)

func f(name string, t Type, kids ...Field) Field {
	return Field{Name: name, Type: t, Nullable: true, Children: kids}
}

func Test_Widens(t *testing.T) {
	tests := []struct {
		name     string
		from, to Type
		want     bool
	}{
		{name: "int32 to int64", from: i32, to: i64, want: true},
		{name: "int64 to int32", from: i64, to: i32, want: false},
		{name: "int8 to int16", from: Type{Kind: Int8}, to: Type{Kind: Int16}, want: true},
		{name: "float to double", from: f32, to: f64, want: true},
		{name: "double to float", from: f64, to: f32, want: false},
		{name: "int32 to double", from: i32, to: f64, want: true},
		{name: "int64 to double loses", from: i64, to: f64, want: false},
		{name: "int32 to decimal(10,0)", from: i32, to: Type{Kind: Decimal, Precision: 10}, want: true},
		{name: "int32 to decimal(10,2)", from: i32, to: Type{Kind: Decimal, Precision: 10, Scale: 2}, want: false},
		{name: "decimal precision up", from: Type{Kind: Decimal, Precision: 9, Scale: 2}, to: Type{Kind: Decimal, Precision: 18, Scale: 2}, want: true},
		{name: "decimal scale up with room", from: Type{Kind: Decimal, Precision: 9, Scale: 2}, to: Type{Kind: Decimal, Precision: 12, Scale: 4}, want: true},
		{name: "decimal scale down", from: Type{Kind: Decimal, Precision: 9, Scale: 2}, to: Type{Kind: Decimal, Precision: 9, Scale: 1}, want: false},
		{name: "date to ntz", from: date, to: ntz, want: true},
		{name: "date to instant", from: date, to: tsUs, want: false},
		{name: "ms to us", from: tsMs, to: tsUs, want: true},
		{name: "ns to us", from: tsNs, to: tsUs, want: true},
		{name: "instant to ntz", from: tsUs, to: ntz, want: false},
		{name: "string to binary", from: str, to: Type{Kind: Binary}, want: true},
		{name: "string to int", from: str, to: i64, want: false},
		{name: "bool to int", from: Type{Kind: Bool}, to: i32, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Widens(tc.from, tc.to))
		})
	}
}

func Test_Resolve(t *testing.T) {
	table := []Field{f("id", i64), f("name", str), f("score", f64)}
	tests := []struct {
		name   string
		file   []Field
		opts   Options
		source []int
		cast   []bool
	}{
		{name: "same", file: table, source: []int{0, 1, 2}, cast: []bool{false, false, false}},
		{name: "column added later: old file lacks it", file: []Field{f("id", i64), f("name", str)}, source: []int{0, 1, -1}, cast: []bool{false, false, false}},
		{name: "column dropped: file has extra", file: []Field{f("id", i64), f("gone", str), f("name", str), f("score", f64)}, source: []int{0, 2, 3}, cast: []bool{false, false, false}},
		{name: "int32 widened", file: []Field{f("id", i32), f("name", str), f("score", f32)}, source: []int{0, 1, 2}, cast: []bool{true, false, true}},
		{name: "reordered by name", file: []Field{f("score", f64), f("id", i64), f("name", str)}, source: []int{1, 2, 0}, cast: []bool{false, false, false}},
		{name: "by position ignores names", file: []Field{f("a", i32), f("b", str)}, opts: Options{ByPosition: true}, source: []int{0, 1, -1}, cast: []bool{true, false, false}},
		{name: "case insensitive", file: []Field{f("ID", i64), f("Name", str)}, opts: Options{CaseInsensitive: true}, source: []int{0, 1, -1}, cast: []bool{false, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Resolve(table, tc.file, "part-1.parquet", tc.opts)
			require.NoError(t, err)
			var src []int
			var cast []bool
			for i := range m.Columns {
				src, cast = append(src, m.Columns[i].Source), append(cast, m.Columns[i].Cast())
			}
			require.Equal(t, tc.source, src)
			require.Equal(t, tc.cast, cast)
		})
	}
}

func Test_Resolve_nested(t *testing.T) {
	table := []Field{f("s", Type{Kind: Struct}, f("a", i64), f("b", str)), f("l", Type{Kind: List}, f("element", i64))}
	file := []Field{f("l", Type{Kind: List}, f("element", i32)), f("s", Type{Kind: Struct}, f("a", i32))}
	m, err := Resolve(table, file, "p.parquet", Options{})
	require.NoError(t, err)
	require.Equal(t, 1, m.Columns[0].Source)
	require.Equal(t, -1, m.Columns[0].Children[1].Source)
	require.True(t, m.Columns[1].Children[0].Cast())

	_, err = Resolve(table, []Field{f("s", Type{Kind: Struct}, f("a", str))}, "p.parquet", Options{})
	require.ErrorIs(t, err, ErrIncompatible)
	require.ErrorContains(t, err, `p.parquet: column "s.a" is string in the file, int64 in the table`)
}

func Test_Resolve_errors(t *testing.T) {
	table := []Field{f("id", i64), {Name: "req", Type: str}}
	tests := []struct {
		name string
		file []Field
		opts Options
		want error
		msg  string
	}{
		{name: "incompatible type", file: []Field{f("id", str), f("req", str)}, want: ErrIncompatible, msg: `part-9.parquet: column "id" is string in the file, int64 in the table`},
		{name: "narrowing", file: []Field{f("id", Type{Kind: Decimal, Precision: 20}), f("req", str)}, want: ErrIncompatible, msg: `"id"`},
		{name: "required column missing", file: []Field{f("id", i64)}, want: ErrMissingColumn, msg: `part-9.parquet: column "req"`},
		{name: "by position incompatible", file: []Field{f("req", str), f("id", i64)}, opts: Options{ByPosition: true}, want: ErrIncompatible, msg: `column "id"`},
		{name: "ambiguous case", file: []Field{f("ID", i64), f("Id", i64), f("req", str)}, opts: Options{CaseInsensitive: true}, want: ErrAmbiguous, msg: `column "id"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(table, tc.file, "part-9.parquet", tc.opts)
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func Test_Unify(t *testing.T) {
	files := []NamedSchema{
		{File: "a.parquet", Fields: []Field{f("id", i32), {Name: "x", Type: str}}},
		{File: "b.parquet", Fields: []Field{f("id", i64), f("y", f64)}},
	}
	got, err := Unify(files, false, Options{})
	require.NoError(t, err)
	require.Equal(t, files[0].Fields, got)
	got, err = Unify(files, true, Options{})
	require.NoError(t, err)
	require.Equal(t, []Field{f("id", i64), {Name: "x", Type: str}, f("y", f64)}, got)
	_, err = Unify(append(files, NamedSchema{File: "c.parquet", Fields: []Field{f("id", str)}}), true, Options{})
	require.ErrorIs(t, err, ErrIncompatible)
	require.ErrorContains(t, err, `c.parquet: column "id" is string`)
}

func Test_Mapping_Stats(t *testing.T) {
	table := []Field{f("id", i64), f("ts", tsMs), f("d", Type{Kind: Decimal, Precision: 12, Scale: 4}), f("new", str), f("s", Type{Kind: Struct}, f("v", f64))}
	file := []Field{f("ID", i32), f("ts", tsUs), f("d", Type{Kind: Decimal, Precision: 9, Scale: 2}), f("s", Type{Kind: Struct}, f("v", i32))}
	m, err := Resolve(table, file, "p.parquet", Options{CaseInsensitive: true})
	require.NoError(t, err)
	fileStats := map[string]prune.ColStats{
		"ID":  {HasMin: true, HasMax: true, Min: prune.IntValue(-5), Max: prune.IntValue(70000), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10},
		"ts":  {HasMin: true, HasMax: true, Min: prune.TimestampValue(1500), Max: prune.TimestampValue(2500), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10},
		"d":   {HasMin: true, HasMax: true, Min: prune.DecimalInt64(-150), Max: prune.DecimalBytes([]byte{0x01, 0x00}), MinExact: true, MaxExact: true, NullCount: 1, NumValues: 10},
		"s.v": {HasMin: true, HasMax: true, Min: prune.IntValue(1), Max: prune.IntValue(2), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10, NaNCount: -1},
	}
	get := func(p string) (prune.ColStats, bool) { s, ok := fileStats[p]; return s, ok }
	tests := []struct {
		name string
		path string
		want prune.ColStats
		ok   bool
	}{
		{name: "int32 widened stays exact", path: "id", ok: true, want: fileStats["ID"]},
		{name: "micro to milli floors min, ceils max", path: "ts", ok: true,
			want: prune.ColStats{HasMin: true, HasMax: true, Min: prune.TimestampValue(1), Max: prune.TimestampValue(3), MinExact: false, MaxExact: false, NullCount: 0, NumValues: 10}},
		{name: "decimal rescaled", path: "d", ok: true,
			want: prune.ColStats{HasMin: true, HasMax: true, Min: prune.DecimalInt64(-15000), Max: prune.DecimalInt64(25600), MinExact: true, MaxExact: true, NullCount: 1, NumValues: 10}},
		{name: "missing column is all null", path: "new", ok: true, want: AllNull(10)},
		{name: "nested int to double", path: "s.v", ok: true,
			want: prune.ColStats{HasMin: true, HasMax: true, Min: prune.FloatValue(1), Max: prune.FloatValue(2), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10, NaNCount: 0}},
		{name: "struct itself has no stats", path: "s", ok: false},
		{name: "unknown column", path: "zz", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := m.Stats(tc.path, 10, get)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

// Test_Stats_prune: a widened column's statistics still prove skipping in the table's type.
func Test_Stats_prune(t *testing.T) {
	table := []Field{f("id", i64), f("added", str)}
	m, err := Resolve(table, []Field{f("id", i32)}, "old.parquet", Options{})
	require.NoError(t, err)
	get := func(p string) (prune.ColStats, bool) {
		return prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(1), Max: prune.IntValue(9), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 5}, p == "id"
	}
	lookup := func(p string) (prune.ColumnType, bool) {
		for _, tf := range table {
			if tf.Name == p {
				return tf.Type.Prune()
			}
		}
		return prune.ColumnType{}, false
	}
	for _, tc := range []struct {
		expr string
		keep bool
	}{
		{"id > 4000000000", false}, {"id = 5", true}, {"added = 'x'", false}, {"added IS NULL", true}, {"added IS NOT NULL", false},
	} {
		e, err := prune.Parse(tc.expr)
		require.NoError(t, err)
		b, err := prune.Bind(e, lookup)
		require.NoError(t, err)
		require.Equal(t, tc.keep, b.MayMatch(func(p string) (prune.ColStats, bool) { return m.Stats(p, 5, get) }), tc.expr)
	}
}

// Test_Type_Prune_decimal: a decimal beyond int64 is prune's FIXED_LEN_BYTE_ARRAY of the
// fewest bytes that hold its precision, as Parquet stores it.
func Test_Type_Prune_decimal(t *testing.T) {
	tests := []struct {
		name      string
		precision int32
		phys      prune.Physical
		length    int32
	}{
		{name: "int64", precision: 18, phys: prune.Int64},
		{name: "nine bytes", precision: 19, phys: prune.FixedLenByteArray, length: 9},
		{name: "decimal(38)", precision: 38, phys: prune.FixedLenByteArray, length: 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct, ok := Type{Kind: Decimal, Precision: tc.precision, Scale: 4}.Prune()
			require.True(t, ok)
			require.Equal(t, tc.phys, ct.Physical)
			require.Equal(t, tc.length, ct.TypeLength)
			_, err := prune.Bind(&prune.Cmp{Op: prune.OpGt, Col: "x", Value: prune.IntLit("0")}, func(string) (prune.ColumnType, bool) { return ct, true })
			require.NoError(t, err)
		})
	}
}
