package format

import (
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_ParseCreatedBy(t *testing.T) {
	tests := []struct {
		name, in string
		want     WriterVersion
	}{
		{name: "parquet-mr with build", in: "parquet-mr version 1.8.1 (build 4aba4dae7bb0d4edbcf7923ae1339f28fd3f7fcf)",
			want: WriterVersion{App: "parquet-mr", Major: 1, Minor: 8, Parsed: true, Patch: 1}},
		{name: "parquet-cpp-arrow", in: "parquet-cpp-arrow version 14.0.2", want: WriterVersion{App: "parquet-cpp-arrow", Major: 14, Patch: 2, Parsed: true}},
		{name: "suffix after the patch", in: "parquet-mr version 1.5.0-cdh5.5.0", want: WriterVersion{App: "parquet-mr", Major: 1, Minor: 5, Parsed: true}},
		{name: "upper case", in: "Impala version 4.0.0-RELEASE (build 1234)", want: WriterVersion{App: "impala", Major: 4, Parsed: true}},
		{name: "no version", in: "parquet-go version latest", want: WriterVersion{App: "parquet-go"}},
		{name: "no version word", in: "DuckDB", want: WriterVersion{App: "duckdb"}},
		{name: "two-part version", in: "parquet-mr version 1.2", want: WriterVersion{App: "parquet-mr"}},
		{name: "empty", in: "", want: WriterVersion{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ParseCreatedBy(tc.in))
		})
	}
}

// Test_WriterBugs has one case per row of WriterBugs, plus the writers each row must spare.
func Test_WriterBugs(t *testing.T) {
	str := StatsColumn{Physical: ByteArray, ColumnOrders: true}
	i32 := StatsColumn{Physical: Int32, SignedOrder: true, ColumnOrders: true}
	u32 := StatsColumn{Physical: Int32, ColumnOrders: true}
	dec := StatsColumn{Physical: FixedLenByteArray, Decimal: true, ColumnOrders: true}
	tests := []struct {
		name      string
		createdBy string
		col       StatsColumn
		usable    bool
		bug       string // the row that forbids, when !usable
		pad       bool
		corrupt   bool // null counts untrusted too
	}{
		{name: "PARQUET-251: parquet-mr 1.7.0 binary", createdBy: "parquet-mr version 1.7.0", col: str, bug: "PARQUET-251", corrupt: true},
		{name: "PARQUET-251: empty created_by binary", createdBy: "", col: str, bug: "PARQUET-251", corrupt: true},
		{name: "PARQUET-251: parquet-mr 1.7.0 int32 signed is fine", createdBy: "parquet-mr version 1.7.0", col: i32, usable: true},
		{name: "PARQUET-251: parquet-mr 1.10.0 binary is fine", createdBy: "parquet-mr version 1.10.0 (build abc)", col: str, usable: true},
		{name: "PARQUET-816: parquet-mr 1.2.8 pads", createdBy: "parquet-mr version 1.2.8", col: i32, usable: true, pad: true},
		{name: "PARQUET-816: unparsed parquet-mr version pads", createdBy: "parquet-mr", col: i32, usable: true, pad: true},
		{name: "PARQUET-816: parquet-mr 1.2.9 does not pad", createdBy: "parquet-mr version 1.2.9", col: i32, usable: true},
		{name: "PARQUET-816: other writers do not pad", createdBy: "parquet-cpp version 1.0.0", col: i32, usable: true},
		{name: "PARQUET-686: parquet-mr 1.9.0 unsigned", createdBy: "parquet-mr version 1.9.0", col: u32, bug: "PARQUET-686"},
		{name: "PARQUET-686: parquet-cpp 1.2.0 unsigned", createdBy: "parquet-cpp version 1.2.0", col: u32, bug: "PARQUET-686"},
		{name: "PARQUET-686: parquet-cpp 1.3.0 unsigned is fine", createdBy: "parquet-cpp version 1.3.0", col: u32, usable: true},
		{name: "PARQUET-1065: deprecated unsigned bounds", createdBy: "parquet-cpp-arrow version 14.0.0",
			col: StatsColumn{Physical: Int32, Deprecated: true}, bug: "PARQUET-1065"},
		{name: "PARQUET-1065: deprecated signed bounds are fine", createdBy: "parquet-cpp-arrow version 14.0.0",
			col: StatsColumn{Physical: Int64, SignedOrder: true, Deprecated: true}, usable: true},
		{name: "PARQUET-1655: parquet-cpp-arrow 3.0.0 decimal", createdBy: "parquet-cpp-arrow version 3.0.0", col: dec, bug: "PARQUET-1655"},
		{name: "PARQUET-1655: parquet-cpp decimal", createdBy: "parquet-cpp version 1.5.1-SNAPSHOT", col: dec, bug: "PARQUET-1655"},
		{name: "PARQUET-1655: parquet-cpp-arrow 4.0.0 decimal is fine", createdBy: "parquet-cpp-arrow version 4.0.0", col: dec, usable: true},
		{name: "impala without column_orders, binary", createdBy: "impala version 2.9.0-cdh5.12.0 (build 03c6ddb)",
			col: StatsColumn{Physical: ByteArray}, bug: "impala-signed-order"},
		{name: "impala with column_orders, binary is fine", createdBy: "impala version 3.4.0 (build 03c6ddb)", col: str, usable: true},
		{name: "impala without column_orders, signed is fine", createdBy: "impala version 2.9.0",
			col: StatsColumn{Physical: Int64, SignedOrder: true}, usable: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := ParseCreatedBy(tc.createdBy)
			ok, bug := v.StatsUsable(tc.col)
			require.Equal(t, tc.usable, ok)
			if !tc.usable {
				require.Equal(t, tc.bug, bug)
			}
			require.Equal(t, tc.pad, v.PadChunks())
			corrupt, _ := v.StatsCorrupt(tc.col)
			require.Equal(t, tc.corrupt, corrupt)
		})
	}
	// Every row of the table is exercised above.
	for _, b := range WriterBugs {
		seen := false
		for _, tc := range tests {
			if strings.HasPrefix(tc.name, b.ID) || b.ID == "impala-signed-order" && strings.HasPrefix(tc.name, "impala") {
				seen = true
			}
		}
		require.True(t, seen, "no test for", b.ID)
	}
}

// FuzzParseCreatedBy: created_by is free text from the file; parsing never panics, and a
// parsed version is never negative.
func FuzzParseCreatedBy(f *testing.F) {
	for _, s := range []string{"parquet-mr version 1.8.1 (build 4aba)", "parquet-cpp-arrow version 14.0.2", "impala version 4.0.0-RELEASE (build x)",
		"version", "parquet-mr version 1..", "a version 99999999999999999999.1.1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseCreatedBy(s)
		if v.Major < 0 || v.Minor < 0 || v.Patch < 0 || !v.Parsed && (v.Major|v.Minor|v.Patch) != 0 {
			t.Fatalf("%q: %+v", s, v)
		}
		_ = v.Bugs()
		_ = v.PadChunks()
		v.StatsUsable(StatsColumn{Physical: ByteArray})
	})
}
