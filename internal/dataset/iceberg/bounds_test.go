package iceberg

import (
	"math/big"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_decimalBoundsPrune: a decimal column's bounds (minimal big-endian unscaled bytes) and a
// literal of its precision bind and compare exactly, however wide: a literal past int64 is not
// folded to a constant (a decimal(22,11) value of 22 digits pruned its file).
func Test_decimalBoundsPrune(t *testing.T) {
	unscaled := func(s string) []byte {
		n, _ := new(big.Int).SetString(s, 10)
		b := n.Bytes()
		if len(b) > 0 && b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	tests := []struct {
		typ, where string
		lo, hi     []byte
		want       bool
	}{
		{"decimal(22,11)", "c >= 32142128325.09412384033", unscaled("3214212832509412384033"), unscaled("3214212832509412384033"), true},
		{"decimal(22,11)", "c > 32142128325.09412384033", unscaled("3214212832509412384033"), unscaled("3214212832509412384033"), false},
		{"decimal(22,11)", "c = 32142128325.094123840330", unscaled("3214212832509412384033"), unscaled("3214212832509412384033"), true},
		{"decimal(20,11)", "c <= 142128325.09412378073", unscaled("14212832509412378073"), unscaled("14212832509412378073"), true},
		{"decimal(20,11)", "c < 142128325.09412378073", unscaled("14212832509412378073"), unscaled("14212832509412378073"), false},
		{"decimal(38,0)", "c BETWEEN 99999999999999999999999999999999999998 AND 99999999999999999999999999999999999999",
			unscaled("99999999999999999999999999999999999999"), unscaled("99999999999999999999999999999999999999"), true},
		{"decimal(9,2)", "c < 14.21", []byte{0x05, 0x8c}, []byte{0x05, 0x8c}, true},
		{"decimal(9,2)", "c > 14.20", []byte{0x05, 0x8c}, []byte{0x05, 0x8c}, false},
	}
	for _, tc := range tests {
		pt, ok := PruneType(tc.typ)
		require.True(t, ok, tc.typ)
		e, err := prune.Parse(tc.where)
		require.NoError(t, err)
		b, err := prune.Bind(e, func(string) (prune.ColumnType, bool) { return pt, true })
		require.NoError(t, err, tc.where)
		lo, ok1 := DecodeBound(tc.typ, tc.lo)
		hi, ok2 := DecodeBound(tc.typ, tc.hi)
		require.True(t, ok1 && ok2, tc.typ)
		got := b.MayMatch(func(string) (prune.ColStats, bool) {
			return prune.ColStats{HasMin: true, HasMax: true, Min: lo, Max: hi, MinExact: true, MaxExact: true, NullCount: 0, NumValues: 1, NaNCount: -1}, true
		})
		require.Equal(t, tc.want, got, tc.typ, tc.where)
	}
}
