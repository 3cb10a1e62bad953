package hive

import (
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

func Test_ParsePath(t *testing.T) {
	tests := []struct {
		name string
		rel  string
		want []Segment
	}{
		{name: "two levels", rel: "year=2024/month=01/part-0.parquet", want: []Segment{{Key: "year", Value: "2024"}, {Key: "month", Value: "01"}}},
		{name: "file name never counts", rel: "a=1.parquet", want: nil},
		{name: "default partition is null", rel: "k=__HIVE_DEFAULT_PARTITION__/p.parquet", want: []Segment{{Key: "k", Null: true}}},
		{name: "empty value is null", rel: "k=/p.parquet", want: []Segment{{Key: "k", Null: true}}},
		{name: "decoded once", rel: "letter=%2F%2520%25f/p.parquet", want: []Segment{{Key: "letter", Value: "/%20%f"}}},
		{name: "escaped key", rel: "a%3Db=1/p.parquet", want: []Segment{{Key: "a=b", Value: "1"}}},
		{name: "value with equals", rel: "k=a=b/p.parquet", want: []Segment{{Key: "k", Value: "a=b"}}},
		{name: "non-partition dirs skipped", rel: "data/2024/k=v/p.parquet", want: []Segment{{Key: "k", Value: "v"}}},
		{name: "empty key skipped", rel: "=v/p.parquet", want: nil},
		{name: "utf8", rel: "data=😈/p.parquet", want: []Segment{{Key: "data", Value: "😈"}}},
		{name: "timestamp with escaped colons", rel: "ts=2024-01-01 10%3A00%3A00/p.parquet", want: []Segment{{Key: "ts", Value: "2024-01-01 10:00:00"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ParsePath(tc.rel))
		})
	}
}

// The DAT multi_partitioned layout (letter/date/data), read as a plain hive folder.
var multiPartitioned = []string{
	"letter=%2F%2520%25f/date=1970-01-01/data=hello/part-00000-f5ab05c8.c000.snappy.parquet",
	"letter=__HIVE_DEFAULT_PARTITION__/date=__HIVE_DEFAULT_PARTITION__/data=__HIVE_DEFAULT_PARTITION__/part-00000-4f01eedb.c000.snappy.parquet",
	"letter=a/date=1970-01-01/data=hello/part-00000-f11b99df.c000.snappy.parquet",
	"letter=a/date=__HIVE_DEFAULT_PARTITION__/data=x/part-00000-902f4f8b.c000.snappy.parquet",
	"letter=b/date=1970-01-02/data=world/part-00000-7d4b758b.c000.snappy.parquet",
}

func Test_Resolve(t *testing.T) {
	p, err := Resolve(multiPartitioned, Options{})
	require.NoError(t, err)
	require.Equal(t, []Column{
		{Name: "letter", Type: prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}},
		{Name: "date", Type: prune.ColumnType{Kind: prune.Date, Physical: prune.Int32}},
		{Name: "data", Type: prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}},
	}, p.Columns)
	require.Equal(t, []Value{{V: prune.StringValue("/%20%f")}, {V: prune.DateValue(0)}, {V: prune.StringValue("hello")}}, p.Values[0])
	require.Equal(t, []Value{{Null: true}, {Null: true}, {Null: true}}, p.Values[1])
	require.Equal(t, Value{V: prune.DateValue(1)}, p.Values[4][1])
}

func Test_Resolve_inference(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  prune.Kind
	}{
		{name: "int64", paths: []string{"k=1/a.parquet", "k=-2/b.parquet", "k=__HIVE_DEFAULT_PARTITION__/c.parquet"}, want: prune.Int},
		{name: "date", paths: []string{"k=2024-01-01/a.parquet", "k=2024-01-02/b.parquet"}, want: prune.Date},
		{name: "timestamp", paths: []string{"k=2024-01-01 10%3A00%3A00/a.parquet"}, want: prune.Timestamp},
		{name: "one string makes all strings", paths: []string{"k=1/a.parquet", "k=x/b.parquet"}, want: prune.Bytes},
		{name: "only nulls is string", paths: []string{"k=__HIVE_DEFAULT_PARTITION__/a.parquet"}, want: prune.Bytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Resolve(tc.paths, Options{})
			require.NoError(t, err)
			require.Equal(t, tc.want, p.Columns[0].Type.Kind)
		})
	}
}

func Test_Resolve_schema(t *testing.T) {
	str := prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}
	p, err := Resolve([]string{"year=2020/a.parquet", "year=2021/b.parquet"}, Options{Schema: []Column{{Name: "year", Type: str}, {Name: "other", Type: str}}})
	require.NoError(t, err)
	require.Equal(t, str, p.Columns[0].Type)
	require.Equal(t, Value{V: prune.StringValue("2021")}, p.Values[1][0])

	i32 := prune.ColumnType{Kind: prune.Int, Physical: prune.Int32}
	_, err = Resolve([]string{"year=2020/a.parquet", "year=2021.0/b.parquet"}, Options{Schema: []Column{{Name: "year", Type: i32}}})
	require.ErrorIs(t, err, ErrValue)
	require.ErrorContains(t, err, `year=2021.0/b.parquet: key "year"`)
}

func Test_Resolve_errors(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  error
		msg   string
	}{
		{name: "missing key", paths: []string{"a=1/b=2/x.parquet", "a=1/y.parquet"}, want: ErrInconsistent, msg: "a=1/y.parquet has keys [a]"},
		{name: "different order", paths: []string{"a=1/b=2/x.parquet", "b=2/a=1/y.parquet"}, want: ErrInconsistent, msg: "b=2/a=1/y.parquet"},
		{name: "unpartitioned file among partitioned", paths: []string{"a=1/x.parquet", "y.parquet"}, want: ErrInconsistent, msg: "y.parquet"},
		{name: "duplicate key", paths: []string{"a=1/a=2/x.parquet"}, want: ErrDuplicateKey, msg: `"a" in a=1/a=2/x.parquet`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.paths, Options{})
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// Test_Stats_prune shows the integration: partition values answer a predicate through prune's
// own statistics evaluator, before any footer is read.
func Test_Stats_prune(t *testing.T) {
	p, err := Resolve(multiPartitioned, Options{})
	require.NoError(t, err)
	lookup := func(path string) (prune.ColumnType, bool) {
		if c := p.Column(path); c >= 0 {
			return p.Columns[c].Type, true
		}
		if path == "number" {
			return prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}, true
		}
		return prune.ColumnType{}, false
	}
	tests := []struct {
		name string
		expr string
		keep []bool
	}{
		{name: "equality on string", expr: "letter = 'a'", keep: []bool{false, false, true, true, false}},
		{name: "date range", expr: "date >= DATE '1970-01-02'", keep: []bool{false, false, false, false, true}},
		{name: "is null", expr: "date IS NULL", keep: []bool{false, true, false, true, false}},
		{name: "is not null", expr: "letter IS NOT NULL", keep: []bool{true, false, true, true, true}},
		{name: "file column is unknown", expr: "letter = 'a' AND number > 100", keep: []bool{false, false, true, true, false}},
		{name: "or with file column keeps", expr: "letter = 'zz' OR number > 100", keep: []bool{true, true, true, true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := prune.Parse(tc.expr)
			require.NoError(t, err)
			b, err := prune.Bind(e, lookup)
			require.NoError(t, err)
			var keep []bool
			for i := range multiPartitioned {
				keep = append(keep, b.MayMatch(p.Stats(i)))
			}
			require.Equal(t, tc.keep, keep)
		})
	}
}

// FuzzResolve checks that path parsing and resolution never panic, that every segment of an
// accepted path round-trips through the escaped form, and that a resolved table has one value
// per column for every file.
func FuzzResolve(f *testing.F) {
	for _, p := range multiPartitioned {
		f.Add(p, "letter=b/date=1970-01-01/data=%F0%9F%98%88/p.parquet")
	}
	f.Add("year=2021.0/is_active=true/event_date=2023-01-02/category=A/p.parquet", "year=2020/is_active=false/event_date=2023-01-01/category=B/p.parquet")
	f.Fuzz(func(t *testing.T, a, b string) {
		p, err := Resolve([]string{a, b}, Options{})
		if err != nil {
			return
		}
		for i, row := range p.Values {
			if len(row) != len(p.Columns) {
				t.Fatalf("file %d has %d values for %d columns", i, len(row), len(p.Columns))
			}
			for c, v := range row {
				if !v.Null && v.V.Kind != p.Columns[c].Type.Kind {
					t.Fatalf("file %d column %d: kind %s, column %s", i, c, v.V.Kind, p.Columns[c].Type)
				}
			}
		}
	})
}
