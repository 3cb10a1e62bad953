package tablescan

import (
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_literalOf: every value binds back to itself on its column type, so a filled value
// compared with another column compares as the value itself.
func Test_literalOf(t *testing.T) {
	types := map[string]prune.ColumnType{
		"i64":  {Kind: prune.Int, Physical: prune.Int64},
		"u64":  {Kind: prune.Uint, Physical: prune.Int64},
		"f64":  {Kind: prune.Float, Physical: prune.Double},
		"f32":  {Kind: prune.Float, Physical: prune.PhysFloat},
		"s":    {Kind: prune.Bytes, Physical: prune.ByteArray},
		"b":    {Kind: prune.Bool, Physical: prune.Boolean},
		"dec":  {Kind: prune.Decimal, Physical: prune.Int64, Scale: 2, Precision: 12},
		"decv": {Kind: prune.Decimal, Physical: prune.ByteArray, Scale: 3, Precision: 30},
		"d":    {Kind: prune.Date, Physical: prune.Int32},
		"ts":   {Kind: prune.Timestamp, Physical: prune.Int64, Unit: prune.Milli, UTC: true},
		"tsl":  {Kind: prune.Timestamp, Physical: prune.Int64, Unit: prune.Micro},
		"tod":  {Kind: prune.Time, Physical: prune.Int64, Unit: prune.Micro},
	}
	vals := map[string][]prune.Value{
		"i64":  {prune.IntValue(-7), prune.IntValue(math.MinInt64)},
		"u64":  {prune.UintValue(math.MaxUint64)},
		"f64":  {prune.FloatValue(0.5), prune.FloatValue(math.Inf(-1)), prune.FloatValue(math.NaN())},
		"f32":  {prune.FloatValue(float64(float32(0.1)))},
		"s":    {prune.StringValue("it's")},
		"b":    {{Kind: prune.Bool, I: 1}},
		"dec":  {{Kind: prune.Decimal, I: -5}, {Kind: prune.Decimal, I: 12345}},
		"decv": {{Kind: prune.Decimal, B: []byte{0xFF, 0x01}}},
		"d":    {{Kind: prune.Date, I: -1}, {Kind: prune.Date, I: 19723}},
		"ts":   {{Kind: prune.Timestamp, I: -1}, {Kind: prune.Timestamp, I: 1790845200001}},
		"tsl":  {{Kind: prune.Timestamp, I: 1790845200000001}},
		"tod":  {{Kind: prune.Time, I: 86399999999}},
	}
	for col, vs := range vals {
		for _, v := range vs {
			lit, ok := literalOf(types[col], v)
			require.True(t, ok, col, v)
			b, err := prune.Bind(&prune.Cmp{Op: prune.OpEq, Col: col, Value: lit}, func(p string) (prune.ColumnType, bool) { c, ok := types[p]; return c, ok })
			require.NoError(t, err, lit)
			vec := &prune.Vector{Kind: v.Kind, Len: 1}
			switch col {
			case "f32":
				vec.F32 = []float32{float32(v.F)}
			case "f64":
				vec.F64 = []float64{v.F}
			case "u64":
				vec.U64 = []uint64{v.U}
			case "s", "decv":
				vec.Offsets, vec.Data = []int32{0, int32(len(v.B))}, v.B
			case "b":
				vec.Bools = []byte{byte(v.I)}
			case "d":
				vec.I32 = []int32{int32(v.I)}
			default:
				vec.I64 = []int64{v.I}
			}
			sel := []bool{false}
			require.NoError(t, b.Filter(func(string) *prune.Vector { return vec }, 1, sel))
			require.Equal(t, !math.IsNaN(v.F), sel[0], col, lit.String())
		}
	}
	_, ok := literalOf(types["f64"], prune.FloatValue(0.1))
	require.True(t, !ok, "a double that is not a float32 value has no literal")
}
