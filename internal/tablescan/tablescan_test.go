package tablescan

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

func parts(t *testing.T, paths ...string) *hive.Partitions {
	t.Helper()
	p, err := hive.Resolve(paths, hive.Options{})
	require.NoError(t, err)
	return p
}

// Test_splitWhere: partition-only AND terms are decided per file, exactly, and leave the
// residual; file-only and mixed terms are the residual.
func Test_splitWhere(t *testing.T) {
	p := parts(t, "d=2024-01-01/n=1/f.parquet", "d=2024-01-02/n=2/f.parquet", "d=__HIVE_DEFAULT_PARTITION__/n=3/f.parquet")
	tests := []struct {
		name     string
		where    string
		residual string
		match    []bool // per file
		err      error
	}{
		{name: "none", where: "", match: []bool{true, true, true}},
		{name: "file only", where: "x > 1", residual: "x > 1", match: []bool{true, true, true}},
		{name: "partition only", where: "d = DATE '2024-01-02'", match: []bool{false, true, false}},
		{name: "both, split", where: "n >= 2 AND x = 'a' AND y < 3", residual: `(x = 'a') AND (y < 3)`, match: []bool{false, true, true}},
		{name: "null partition is unknown, not a match", where: "d <> DATE '2024-01-01'", match: []bool{false, true, false}},
		{name: "IS NULL on a partition", where: "d IS NULL", match: []bool{false, false, true}},
		{name: "OR inside a partition term", where: "(n = 1 OR n = 3)", match: []bool{true, false, true}},
		{name: "mixed term: residual", where: "n = 1 OR x = 2", residual: "n = 1 OR x = 2", match: []bool{true, true, true}},
		{name: "mixed and partition terms", where: "d IS NOT NULL AND (n = 1 OR x = 2)", residual: "n = 1 OR x = 2", match: []bool{true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := splitWhere(tc.where, p)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.residual, w.residual)
			for i, want := range tc.match {
				got, err := w.fileMatches(p, i)
				require.NoError(t, err)
				require.Equal(t, want, got, "file", i)
			}
		})
	}
}

// Test_mixedWhere: a term naming partition and file columns together is rewritten per file
// with the file's partition values: decided where they decide it, else left to the file's
// columns; a null partition value is unknown, as it would be row by row.
func Test_mixedWhere(t *testing.T) {
	p := parts(t, "n=1/f.parquet", "n=2/f.parquet", "n=__HIVE_DEFAULT_PARTITION__/f.parquet")
	tests := []struct {
		where string
		want  []string // per file: the file's predicate ("" every row), or "-" no row
	}{
		{"n = 1 OR x = 2", []string{"", "x = 2", "x = 2"}},
		{"n = 1 AND x = 2 OR n = 2", []string{"x = 2", "", "-"}},
		{"NOT (n = 2 OR x > 5)", []string{"NOT (x > 5)", "-", "-"}},
		{"n IS NULL OR x IN (1, 2)", []string{"x IN (1, 2)", "x IN (1, 2)", ""}},
	}
	for _, tc := range tests {
		w, err := splitWhere(tc.where, p)
		require.NoError(t, err, tc.where)
		require.Equal(t, []string{"n"}, w.partCols, tc.where)
		for i, want := range tc.want {
			c := p.Column("n")
			fill := map[string]filled{"n": {t: p.Columns[c].Type, v: p.Values[i][c]}}
			got, any, _ := fileWhere(w.resExpr, map[string]string{"x": "x", "n": ""}, map[string]litMode{}, fill)
			if !any {
				got = "-"
			}
			require.Equal(t, want, got, tc.where, "file", i)
		}
	}
}

// Test_shape: a file's columns mapped onto the table schema: reordered by name, missing as
// nulls, widened, partition constants.
func Test_shape(t *testing.T) {
	i64 := arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
	i32 := arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}
	f64 := arrowipc.DataType{ID: arrowipc.Float, BitWidth: 64}
	f32 := arrowipc.DataType{ID: arrowipc.Float, BitWidth: 32}
	utf8 := arrowipc.DataType{ID: arrowipc.Utf8}
	p := parts(t, "k=7/f.parquet")
	table := []arrowipc.Field{{Name: "a", Type: i64}, {Name: "b", Type: f64}, {Name: "s", Type: utf8, Nullable: true}, partitionField(p.Columns[0])}
	file := []arrowipc.Field{{Name: "b", Type: f32}, {Name: "a", Type: i32}}
	fs, err := newFileShape(table, []int{0, 1, 2, 3}, 1, p, 0, file, nil, "f.parquet", nil, &Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, fs.scanCols)
	a := &arrowipc.Array{Len: 2, Data: binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(0xffffffff)), 5)}
	b := &arrowipc.Array{Len: 2, Data: binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5)), math.Float32bits(-2))}
	out, err := fs.shape(2, nil, []*arrowipc.Array{a, b})
	require.NoError(t, err)
	require.Equal(t, 4, len(out))
	require.Equal(t, int64(-1), int64(binary.LittleEndian.Uint64(out[0].Data)))
	require.Equal(t, int64(5), int64(binary.LittleEndian.Uint64(out[0].Data[8:])))
	require.Equal(t, 1.5, math.Float64frombits(binary.LittleEndian.Uint64(out[1].Data)))
	require.Equal(t, 2, out[2].NullCount)
	require.Equal(t, []int32{0, 0, 0}, out[2].Offsets)
	require.Equal(t, int64(7), int64(binary.LittleEndian.Uint64(out[3].Data[8:])))
	require.NoError(t, arrowipc.Validate(&fs.out, 2, out))

	// An incompatible type, a narrowing, and a file column named like a partition key.
	for _, bad := range [][]arrowipc.Field{
		{{Name: "a", Type: utf8}},
		{{Name: "b", Type: i64}, {Name: "a", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64}}},
		{{Name: "k", Type: i64}},
	} {
		_, err := newFileShape(table, []int{0, 1, 2, 3}, 1, p, 0, bad, nil, "bad.parquet", nil, &Options{})
		require.ErrorIs(t, err, ErrSchema)
	}
}

// Test_protocolErrors: a table session refuses file-less pushes and unknown files.
func Test_protocolErrors(t *testing.T) {
	tb, err := New(Options{Files: []File{{Path: "a.parquet", Size: 100}}}, nil)
	require.NoError(t, err)
	require.ErrorIs(t, tb.Push(0, []byte{1}), ErrProtocol)
	require.ErrorIs(t, tb.SetFileSize(1), ErrProtocol)
	require.ErrorIs(t, tb.PushFile(3, 0, []byte{1}), ErrProtocol)
	st := tb.Next()
	require.Equal(t, scan.NeedData, st.Kind)
	require.Equal(t, 0, st.Reqs[0].File)
	_, err = New(Options{}, nil)
	require.ErrorIs(t, err, ErrOptions)
	_, err = New(Options{Files: []File{{Path: "a"}}, Options: scan.Options{FileKey: "x"}}, nil)
	require.ErrorIs(t, err, ErrOptions)
}

// Test_widen: every cast widen performs, on values at the edges of the file type, and the
// pairs it refuses.
func Test_widen(t *testing.T) {
	it := func(bits int, signed bool) arrowipc.DataType {
		return arrowipc.DataType{ID: arrowipc.Int, BitWidth: bits, Signed: signed}
	}
	ts := func(u arrowipc.TimeUnit, tz string) arrowipc.DataType {
		return arrowipc.DataType{ID: arrowipc.Timestamp, Unit: u, TZ: tz}
	}
	dec := func(p, s int) arrowipc.DataType {
		return arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: p, Scale: s}
	}
	le := func(w int, vs ...int64) []byte {
		var out []byte
		for _, v := range vs {
			var b [16]byte
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			if v < 0 {
				binary.LittleEndian.PutUint64(b[8:], math.MaxUint64)
			}
			out = append(out, b[:w]...)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		from, to arrowipc.DataType
		in, want []byte
	}{
		{"int8 to int16", it(8, true), it(16, true), le(1, -128, 127), le(2, -128, 127)},
		{"int16 to int32", it(16, true), it(32, true), le(2, -32768, 5), le(4, -32768, 5)},
		{"uint8 to int16", it(8, false), it(16, true), []byte{255, 0}, le(2, 255, 0)},
		{"uint32 to int64", it(32, false), it(64, true), le(4, -1, 7), le(8, 4294967295, 7)},
		{"int32 to int64", it(32, true), it(64, true), le(4, -2147483648, 2147483647), le(8, -2147483648, 2147483647)},
		{"ms to us", ts(arrowipc.Millisecond, ""), ts(arrowipc.Microsecond, ""), le(8, -1, 1700000000000), le(8, -1000, 1700000000000000)},
		{"s to ns, UTC", ts(arrowipc.Second, "UTC"), ts(arrowipc.Nanosecond, "UTC"), le(8, 1), le(8, 1e9)},
		{"decimal(5,2) to (10,2)", dec(5, 2), dec(10, 2), le(16, -99999, 12345), le(16, -99999, 12345)},
		{"decimal(5,2) to (12,4)", dec(5, 2), dec(12, 4), le(16, -99999, 12345), le(16, -9999900, 1234500)},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.True(t, widens(c.from, c.to))
			n := len(c.in) / max(c.from.BitWidth/8, 1)
			if c.from.ID == arrowipc.Timestamp {
				n = len(c.in) / 8
			}
			out, err := widen(&arrowipc.Array{Len: n, Data: c.in}, c.from, c.to, n)
			require.NoError(t, err)
			require.Equal(t, c.want, out.Data)
		})
	}
	for _, bad := range [][2]arrowipc.DataType{
		{it(64, true), it(32, true)}, {it(64, false), it(64, true)}, {it(32, true), it(32, false)},
		{ts(arrowipc.Microsecond, ""), ts(arrowipc.Millisecond, "")}, {ts(arrowipc.Millisecond, ""), ts(arrowipc.Microsecond, "UTC")},
		{dec(10, 3), dec(10, 2)}, {dec(10, 2), dec(10, 3)}, {arrowipc.DataType{ID: arrowipc.Float, BitWidth: 64}, arrowipc.DataType{ID: arrowipc.Float, BitWidth: 32}},
	} {
		require.True(t, !widens(bad[0], bad[1]), typeName(bad[0]), typeName(bad[1]))
	}
	// Out of range: seconds far from the epoch in nanoseconds.
	_, err := widen(&arrowipc.Array{Len: 1, Data: le(8, 1<<40)}, ts(arrowipc.Second, ""), ts(arrowipc.Nanosecond, ""), 1)
	require.ErrorIs(t, err, ErrSchema)
	// A decimal beyond its declared precision does not fit the wider one: an error, no panic.
	_, err = widen(&arrowipc.Array{Len: 1, Data: le(16, math.MaxInt64)}, dec(5, 0), arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 38, Scale: 30}, 1)
	require.Error(t, err)
}
