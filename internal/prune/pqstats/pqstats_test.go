package pqstats

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func i64p(v int64) *int64  { return &v }
func bp(v bool) *bool      { return &v }

var (
	tI32  = prune.ColumnType{Physical: prune.Int32, Kind: prune.Int}
	tU32  = prune.ColumnType{Physical: prune.Int32, Kind: prune.Uint}
	tStr  = prune.ColumnType{Physical: prune.ByteArray, Kind: prune.Bytes}
	tF64  = prune.ColumnType{Physical: prune.Double, Kind: prune.Float}
	tI96  = prune.ColumnType{Physical: prune.Int96, Kind: prune.Timestamp, Unit: prune.Nano}
	tDecB = prune.ColumnType{Physical: prune.FixedLenByteArray, Kind: prune.Decimal, TypeLength: 4, Precision: 9, Scale: 2}
	tDecI = prune.ColumnType{Physical: prune.Int32, Kind: prune.Decimal, Precision: 9, Scale: 2}

	modern  = format.ParseCreatedBy("parquet-cpp-arrow version 14.0.2")
	typed   = Order{FileHasOrders: true, TypeDefined: true}
	noOrder = Order{} // a file without column_orders
)

// unknown is ColStats with nothing known, for a chunk of n values.
func unknown(n int64) prune.ColStats {
	return prune.ColStats{NullCount: -1, NumValues: n, NaNCount: -1}
}

// with returns cs with the given bounds.
func with(cs prune.ColStats, min, max prune.Value, minExact, maxExact bool) prune.ColStats {
	cs.HasMin, cs.Min, cs.MinExact = true, min, minExact
	cs.HasMax, cs.Max, cs.MaxExact = true, max, maxExact
	return cs
}

// nulls returns cs with a null count.
func nulls(cs prune.ColStats, n int64) prune.ColStats { cs.NullCount = n; return cs }

// Test_Chunk has one row per safety rule of Chunk (see the package doc). Values compare by
// their printed form so that a NaN bound compares equal to itself.
func Test_Chunk(t *testing.T) {
	minmax := func(a, b []byte) *format.Statistics {
		return &format.Statistics{MinValue: a, MaxValue: b, NullCount: i64p(2)}
	}
	deprecated := func(a, b []byte) *format.Statistics {
		return &format.Statistics{Min: a, Max: b, NullCount: i64p(2)}
	}
	tests := []struct {
		name   string
		st     *format.Statistics
		t      prune.ColumnType
		writer format.WriterVersion
		order  Order
		want   prune.ColStats
	}{
		{name: "no statistics: nothing known", st: nil, t: tI32, writer: modern, order: typed, want: unknown(10)},
		{name: "min_value/max_value with a type-defined order: exact bounds", st: minmax(le32(1), le32(9)), t: tI32, writer: modern, order: typed,
			want: with(nulls(unknown(10), 2), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "column order not type-defined: bounds dropped, null count kept", st: minmax(le32(1), le32(9)), t: tI32, writer: modern,
			order: Order{FileHasOrders: true}, want: nulls(unknown(10), 2)},
		{name: "no column_orders: min_value/max_value still follow the type's order", st: minmax(le32(1), le32(9)), t: tI32, writer: modern, order: noOrder,
			want: with(nulls(unknown(10), 2), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "unsigned int32 decoded unsigned", st: minmax(le32(1), le32(math.MaxUint32)), t: tU32, writer: modern, order: typed,
			want: with(nulls(unknown(10), 2), prune.UintValue(1), prune.UintValue(math.MaxUint32), true, true)},
		{name: "deprecated min/max on a signed int: used, exact", st: deprecated(le32(1), le32(9)), t: tI32, writer: modern, order: typed,
			want: with(nulls(unknown(10), 2), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "deprecated min/max on an unsigned int: not used (signed order)", st: deprecated(le32(1), le32(math.MaxUint32)), t: tU32, writer: modern, order: typed,
			want: nulls(unknown(10), 2)},
		{name: "deprecated min/max on a string: not used", st: deprecated([]byte("a"), []byte("z")), t: tStr, writer: modern, order: typed,
			want: nulls(unknown(10), 2)},
		{name: "deprecated min/max on a byte-array decimal: not used", st: deprecated([]byte{0, 0, 0, 1}, []byte{0, 0, 0, 9}), t: tDecB, writer: modern, order: typed,
			want: nulls(unknown(10), 2)},
		{name: "deprecated fields are not a fallback when min_value/max_value exist in an undefined order",
			st: &format.Statistics{MinValue: le32(1), MaxValue: le32(9), Min: le32(1), Max: le32(9)}, t: tI32, writer: modern, order: Order{FileHasOrders: true},
			want: unknown(10)},
		// A max that may be a cut prefix bounds the values only as its prefix successor.
		{name: "string bounds without is_*_exact: bounds, not values (may be truncated)", st: minmax([]byte("a"), []byte("z")), t: tStr, writer: modern, order: typed,
			want: with(nulls(unknown(10), 2), prune.StringValue("a"), prune.StringValue("{"), false, false)},
		{name: "truncated max (is_max_value_exact = false)",
			st: &format.Statistics{MinValue: []byte("Kevin"), MaxValue: []byte("Kf"), IsMinValueExact: bp(true), IsMaxValueExact: bp(false)}, t: tStr, writer: modern, order: typed,
			want: with(unknown(10), prune.StringValue("Kevin"), prune.StringValue("Kf"), true, false)},
		{name: "a max cut without rounding up (hyparquet, 16 bytes): its successor",
			st: minmax([]byte("adipiscing encod"), []byte("the storage over")), t: tStr, writer: format.ParseCreatedBy("hyparquet"), order: typed,
			want: with(nulls(unknown(10), 2), prune.StringValue("adipiscing encod"), prune.StringValue("the storage oves"), false, false)},
		{name: "exact string max kept",
			st: &format.Statistics{MinValue: []byte("a"), MaxValue: []byte("z"), IsMinValueExact: bp(true), IsMaxValueExact: bp(true)}, t: tStr, writer: modern, order: typed,
			want: with(unknown(10), prune.StringValue("a"), prune.StringValue("z"), true, true)},
		{name: "a max of 0xFF bytes bounds nothing",
			st: minmax([]byte("a"), []byte{0xFF, 0xFF}), t: tStr, writer: modern, order: typed,
			want: func() prune.ColStats {
				c := nulls(unknown(10), 2)
				c.HasMin, c.Min = true, prune.StringValue("a")
				return c
			}()},
		{name: "is_min_value_exact = false on a fixed-width type is honoured",
			st: &format.Statistics{MinValue: le32(1), MaxValue: le32(9), IsMinValueExact: bp(false)}, t: tI32, writer: modern, order: typed,
			want: with(unknown(10), prune.IntValue(1), prune.IntValue(9), false, true)},
		{name: "NaN count passed on; a NaN bound is a value the evaluator must treat as unknown",
			st: &format.Statistics{MinValue: le64(math.Float64bits(1)), MaxValue: le64(math.Float64bits(math.NaN())), NanCount: i64p(3)}, t: tF64, writer: modern, order: typed,
			want: func() prune.ColStats {
				cs := with(unknown(10), prune.FloatValue(1), prune.FloatValue(math.NaN()), true, true)
				cs.NaNCount = 3
				return cs
			}()},
		{name: "INT96: bounds ignored, null count kept", st: minmax(make([]byte, 12), make([]byte, 12)), t: tI96, writer: modern, order: typed,
			want: nulls(unknown(10), 2)},
		{name: "INT96 deprecated min/max ignored too", st: deprecated(make([]byte, 12), make([]byte, 12)), t: tI96, writer: modern, order: typed,
			want: nulls(unknown(10), 2)},
		{name: "malformed width: the bound is dropped", st: minmax([]byte{1, 2, 3}, le32(9)), t: tI32, writer: modern, order: typed,
			want: func() prune.ColStats {
				cs := nulls(unknown(10), 2)
				cs.HasMax, cs.Max, cs.MaxExact = true, prune.IntValue(9), true
				return cs
			}()},
		{name: "PARQUET-251 (parquet-mr 1.7.0) string: the whole statistics untrusted, null count too", st: minmax([]byte("a"), []byte("z")), t: tStr,
			writer: format.ParseCreatedBy("parquet-mr version 1.7.0"), order: noOrder, want: unknown(10)},
		{name: "PARQUET-251 writer, signed int32: usable", st: minmax(le32(1), le32(9)), t: tI32,
			writer: format.ParseCreatedBy("parquet-mr version 1.7.0"), order: noOrder,
			want: with(nulls(unknown(10), 2), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "PARQUET-251: no created_by counts as an old parquet-mr", st: minmax([]byte("a"), []byte("z")), t: tStr,
			writer: format.WriterVersion{}, order: noOrder, want: unknown(10)},
		{name: "PARQUET-686 (parquet-mr 1.9.0) unsigned: bounds dropped, null count kept", st: minmax(le32(1), le32(9)), t: tU32,
			writer: format.ParseCreatedBy("parquet-mr version 1.9.0"), order: noOrder, want: nulls(unknown(10), 2)},
		{name: "PARQUET-1655 (parquet-cpp-arrow 3.0.0) decimal: bounds dropped", st: minmax(le32(1), le32(9)), t: tDecI,
			writer: format.ParseCreatedBy("parquet-cpp-arrow version 3.0.0"), order: typed, want: nulls(unknown(10), 2)},
		{name: "integer decimal from a fixed writer", st: minmax(le32(1), le32(9)), t: tDecI, writer: modern, order: typed,
			want: with(nulls(unknown(10), 2), prune.DecimalInt64(1), prune.DecimalInt64(9), true, true)},
		{name: "impala without column_orders, string: bounds dropped", st: minmax([]byte("a"), []byte("z")), t: tStr,
			writer: format.ParseCreatedBy("impala version 4.0.0"), order: noOrder, want: nulls(unknown(10), 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cm := &format.ColumnMetaData{NumValues: 10, Statistics: tc.st}
			got := Chunk(cm, Column{Type: tc.t, Writer: tc.writer, Order: tc.order})
			require.Equal(t, fmt.Sprintf("%+v", tc.want), fmt.Sprintf("%+v", got))
		})
	}
}

// Test_Page has one row per safety rule of Page.
func Test_Page(t *testing.T) {
	ci := func(min, max []byte) *format.ColumnIndex {
		return &format.ColumnIndex{NullPages: []bool{false}, MinValues: [][]byte{min}, MaxValues: [][]byte{max}, NullCounts: []int64{2}}
	}
	page := func(nullCount int64) prune.ColStats {
		return prune.ColStats{NullCount: nullCount, NumValues: -1, NaNCount: -1}
	}
	tests := []struct {
		name     string
		ci       *format.ColumnIndex
		t        prune.ColumnType
		writer   format.WriterVersion
		order    Order
		nullable bool
		want     prune.ColStats
	}{
		{name: "int32 page: exact bounds", ci: ci(le32(1), le32(9)), t: tI32, writer: modern, order: typed,
			want: with(page(2), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "null page: only nulls, no bounds", ci: &format.ColumnIndex{NullPages: []bool{true}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}, NullCounts: []int64{5}},
			t: tI32, writer: modern, order: typed, nullable: true, want: prune.ColStats{NullCount: 5, NumValues: 5, NaNCount: -1}},
		// parquet-mr with statistics disabled marks every page a null page and writes no null
		// counts (parquet-testing datapage_v1-*-checksum.parquet, whose columns are required).
		{name: "null page of a required column: nothing known", ci: &format.ColumnIndex{NullPages: []bool{true}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}},
			t: tI32, writer: modern, order: typed, want: page(-1)},
		{name: "null page without null counts: nothing known", ci: &format.ColumnIndex{NullPages: []bool{true}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}},
			t: tI32, writer: modern, order: typed, nullable: true, want: page(-1)},
		{name: "null page whose null count is 0: nothing known but the count", ci: &format.ColumnIndex{NullPages: []bool{true}, MinValues: [][]byte{{}}, MaxValues: [][]byte{{}}, NullCounts: []int64{0}},
			t: tI32, writer: modern, order: typed, nullable: true, want: page(0)},
		{name: "no null counts: unknown", ci: &format.ColumnIndex{NullPages: []bool{false}, MinValues: [][]byte{le32(1)}, MaxValues: [][]byte{le32(9)}},
			t: tI32, writer: modern, order: typed, want: with(page(-1), prune.IntValue(1), prune.IntValue(9), true, true)},
		{name: "string page bounds are never exact (truncated): the max as its successor", ci: ci([]byte("a"), []byte("z")), t: tStr, writer: modern, order: typed,
			want: with(page(2), prune.StringValue("a"), prune.StringValue("{"), false, false)},
		{name: "decimal page bounds are never exact", ci: ci(le32(1), le32(9)), t: tDecI, writer: modern, order: typed,
			want: with(page(2), prune.DecimalInt64(1), prune.DecimalInt64(9), false, false)},
		{name: "INT96 page: no bounds", ci: ci(make([]byte, 12), make([]byte, 12)), t: tI96, writer: modern, order: typed, want: page(2)},
		{name: "column order not type-defined: no bounds", ci: ci(le32(1), le32(9)), t: tI32, writer: modern, order: Order{FileHasOrders: true}, want: page(2)},
		{name: "PARQUET-686 writer, unsigned: no bounds", ci: ci(le32(1), le32(9)), t: tU32,
			writer: format.ParseCreatedBy("parquet-mr version 1.9.0"), order: noOrder, want: page(2)},
		{name: "PARQUET-251 writer, string: no bounds (the index's null counts are its own)", ci: ci([]byte("a"), []byte("z")), t: tStr,
			writer: format.ParseCreatedBy("parquet-mr version 1.7.0"), order: noOrder, want: page(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Page(tc.ci, 0, Column{Type: tc.t, Writer: tc.writer, Order: tc.order, Nullable: tc.nullable})
			require.Equal(t, fmt.Sprintf("%+v", tc.want), fmt.Sprintf("%+v", got))
		})
	}
}

func Test_OrderOf(t *testing.T) {
	orders := []format.ColumnOrder{{TypeDefinedOrder: true}, {}}
	tests := []struct {
		name   string
		orders []format.ColumnOrder
		leaf   int
		want   Order
	}{
		{name: "no column_orders", orders: nil, leaf: 0, want: Order{}},
		{name: "type-defined", orders: orders, leaf: 0, want: Order{FileHasOrders: true, TypeDefined: true}},
		{name: "undefined", orders: orders, leaf: 1, want: Order{FileHasOrders: true}},
		{name: "leaf past the list", orders: orders, leaf: 2, want: Order{FileHasOrders: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, OrderOf(tc.orders, tc.leaf))
		})
	}
}

// Test_NaNBoundKeeps: a NaN bound that Chunk passes on must not prune (the evaluator's half
// of the NaN rule, checked through the conversion so the two halves agree).
func Test_NaNBoundKeeps(t *testing.T) {
	b, err := prune.Bind(mustParse(t, "x > 100"), func(string) (prune.ColumnType, bool) { return tF64, true })
	require.NoError(t, err)
	st := &format.Statistics{MinValue: le64(math.Float64bits(math.NaN())), MaxValue: le64(math.Float64bits(math.NaN())), NullCount: i64p(0)}
	cs := Chunk(&format.ColumnMetaData{NumValues: 10, Statistics: st}, Column{Type: tF64, Writer: modern, Order: typed})
	require.True(t, b.MayMatch(func(string) (prune.ColStats, bool) { return cs, true }), "a NaN bound pruned")
}

func mustParse(t *testing.T, s string) prune.Expr {
	t.Helper()
	e, err := prune.Parse(s)
	require.NoError(t, err)
	return e
}

// Test_physical: every Thrift physical type maps to prune's and back.
func Test_physical(t *testing.T) {
	for ft := format.Boolean; ft <= format.FixedLenByteArray; ft++ {
		p := PhysicalOf(ft)
		require.True(t, p != prune.PhysUnknown, ft)
		require.Equal(t, ft, physical(p))
	}
	require.Equal(t, prune.PhysUnknown, PhysicalOf(format.Type(42)))
}

// Test_totalOrder: statistics and column index entries under IEEE_754_TOTAL_ORDER.
func Test_totalOrder(t *testing.T) {
	ieee := Order{FileHasOrders: true, IEEE754: true}
	f64 := func(v float64) []byte { return le64(math.Float64bits(v)) }
	tF16 := prune.ColumnType{Physical: prune.FixedLenByteArray, Kind: prune.Float, TypeLength: 2}
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	counts := func(nulls, nans int64) prune.ColStats {
		return prune.ColStats{NullCount: nulls, NumValues: 10, NaNCount: nans}
	}
	tests := []struct {
		name string
		st   *format.Statistics
		t    prune.ColumnType
		want prune.ColStats
	}{
		{name: "non-NaN bounds are exact numeric bounds; -0.0 kept as written", t: tF64,
			st:   &format.Statistics{MinValue: f64(negZero), MaxValue: f64(5), NullCount: i64p(1), NanCount: i64p(2)},
			want: with(counts(1, 2), prune.FloatValue(negZero), prune.FloatValue(5), true, true)},
		{name: "NaN bounds: every non-null value is NaN", t: tF64,
			st:   &format.Statistics{MinValue: f64(nan), MaxValue: f64(nan), NullCount: i64p(0), NanCount: i64p(10)},
			want: func() prune.ColStats { c := counts(0, 10); c.OnlyNaN = true; return c }()},
		{name: "one NaN bound and one number contradict the order: no bounds", t: tF64,
			st:   &format.Statistics{MinValue: f64(1), MaxValue: f64(nan), NullCount: i64p(0), NanCount: i64p(3)},
			want: counts(0, 3)},
		{name: "nan_count missing (against the spec): NaNs possible", t: tF64,
			st:   &format.Statistics{MinValue: f64(1), MaxValue: f64(2), NullCount: i64p(0)},
			want: with(counts(0, -1), prune.FloatValue(1), prune.FloatValue(2), true, true)},
		{name: "FLOAT16 bounds decoded from their half-precision bytes", t: tF16,
			st:   &format.Statistics{MinValue: []byte{0x00, 0xc0}, MaxValue: []byte{0x00, 0x45}, NullCount: i64p(0), NanCount: i64p(0)},
			want: with(counts(0, 0), prune.FloatValue(-2), prune.FloatValue(5), true, true)},
		{name: "the order on a non-float column: no bounds", t: tI32,
			st:   &format.Statistics{MinValue: le32(1), MaxValue: le32(9), NullCount: i64p(0)},
			want: prune.ColStats{NullCount: 0, NumValues: 10, NaNCount: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Chunk(&format.ColumnMetaData{NumValues: 10, Statistics: tc.st}, Column{Type: tc.t, Writer: modern, Order: ieee})
			require.Equal(t, fmt.Sprintf("%+v", tc.want), fmt.Sprintf("%+v", got))
		})
	}
	// Column index: a NaN in min_values or max_values means the page is all NaN; nan_counts
	// are passed on.
	ci := &format.ColumnIndex{NullPages: []bool{false, false}, MinValues: [][]byte{f64(nan), f64(negZero)},
		MaxValues: [][]byte{f64(nan), f64(1.5)}, NullCounts: []int64{0, 0}, NanCounts: []int64{2, 0}}
	p0 := Page(ci, 0, Column{Type: tF64, Writer: modern, Order: ieee})
	require.True(t, p0.OnlyNaN && !p0.HasMin && !p0.HasMax && p0.NaNCount == 2, fmt.Sprintf("%+v", p0))
	p1 := Page(ci, 1, Column{Type: tF64, Writer: modern, Order: ieee})
	require.Equal(t, fmt.Sprintf("%+v", with(prune.ColStats{NullCount: 0, NumValues: -1, NaNCount: 0}, prune.FloatValue(negZero), prune.FloatValue(1.5), true, true)), fmt.Sprintf("%+v", p1))
	// Under TYPE_ORDER the same entries keep their old rules (NaN bounds bound nothing).
	require.True(t, !Page(ci, 0, Column{Type: tF64, Writer: modern, Order: typed}).OnlyNaN)
	require.Equal(t, float32(-2), Float16(0xc000))
	require.Equal(t, float32(65504), Float16(0x7bff))
	require.Equal(t, float32(5.960464477539063e-08), Float16(0x0001))
	require.True(t, math.IsNaN(float64(Float16(0x7e00))) && math.IsInf(float64(Float16(0xfc00)), -1))
	require.True(t, math.Signbit(float64(Float16(0x8000))))
}
