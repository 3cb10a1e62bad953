package delta

import (
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

const (
	lineProtocol = `{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}`
	lineMetadata = `{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"p\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},{\"name\":\"n\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{}}}`
)

func addLine(path, p string) string {
	return `{"add":{"path":"` + path + `","partitionValues":{"p":` + p + `},"size":10,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":2,\"minValues\":{\"n\":1},\"maxValues\":{\"n\":9},\"nullCount\":{\"n\":0}}"}}`
}

func Test_ParseCommit(t *testing.T) {
	body := lineProtocol + "\n" + lineMetadata + "\n\n" + addLine("p=2024-01-01/a.parquet", `"2024-01-01"`) + "\n" +
		`{"remove":{"path":"old.parquet","deletionTimestamp":5,"dataChange":true}}` + "\n" +
		`{"commitInfo":{"operation":"WRITE"}}` + "\n" + `{"someFutureAction":{"x":1}}` + "\n" +
		`{"txn":{"appId":"app","version":3}}` + "\n" + `{"domainMetadata":{"domain":"d","configuration":"{}","removed":false}}` + "\n" +
		`{"cdc":{"path":"_change_data/c.parquet","partitionValues":{},"size":1,"dataChange":false}}` + "\n" +
		`{"checkpointMetadata":{"version":8}}` + "\n" + `{"sidecar":{"path":"s.parquet","sizeInBytes":1,"modificationTime":1}}`
	acts, err := ParseCommit("00000000000000000000.json", []byte(body))
	require.NoError(t, err)
	require.Equal(t, 10, len(acts))
	require.Equal(t, 1, acts[0].Protocol.MinReaderVersion)
	require.Equal(t, []string{"p"}, acts[1].Metadata.PartitionColumns)
	require.Equal(t, "2024-01-01", *acts[2].Add.PartitionValues["p"])
	require.Equal(t, "old.parquet", acts[3].Remove.Path)
	require.Equal(t, `{"operation":"WRITE"}`, string(acts[4].CommitInfo))
	require.Equal(t, "app", acts[5].Txn.AppID)
	require.Equal(t, "d", acts[6].DomainMetadata.Domain)
	require.Equal(t, "_change_data/c.parquet", acts[7].CDC.Path)
	require.Equal(t, int64(8), acts[8].CheckpointMetadata.Version)
	require.Equal(t, "s.parquet", acts[9].Sidecar.Path)
}

func Test_ParseCommit_errors(t *testing.T) {
	tests := []struct {
		name string
		body string
		msg  string
	}{
		{name: "truncated last line", body: lineProtocol + "\n" + lineMetadata[:40], msg: "c.json line 2"},
		{name: "not an object", body: "[1]", msg: "line 1: not a JSON object"},
		{name: "garbage", body: lineProtocol + "\nnot json", msg: "line 2"},
		{name: "two actions on a line", body: `{"add":{"path":"a","size":1},"remove":{"path":"a"}}`, msg: "2 actions"},
		{name: "add without path", body: `{"add":{"size":1}}`, msg: "without a path"},
		{name: "negative size", body: `{"add":{"path":"a","size":-1}}`, msg: "negative size"},
		{name: "wrong type", body: `{"add":{"path":"a","size":"1"}}`, msg: "line 1"},
		{name: "metadata without schema", body: `{"metaData":{"id":"x"}}`, msg: "schemaString"},
		{name: "reader version 0", body: `{"protocol":{"minReaderVersion":0}}`, msg: "minReaderVersion 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCommit("c.json", []byte(tc.body))
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func Test_ParseLastCheckpoint(t *testing.T) {
	lc, err := ParseLastCheckpoint([]byte(`{"version":10,"size":13}`))
	require.NoError(t, err)
	require.Equal(t, []string{"00000000000000000010.checkpoint.parquet"}, func() []string { n, _ := CheckpointNames(lc); return n }())
	lc, err = ParseLastCheckpoint([]byte(`{"version":7,"size":30,"parts":3}`))
	require.NoError(t, err)
	names, _ := CheckpointNames(lc)
	require.Equal(t, []string{
		"00000000000000000007.checkpoint.0000000001.0000000003.parquet",
		"00000000000000000007.checkpoint.0000000002.0000000003.parquet",
		"00000000000000000007.checkpoint.0000000003.0000000003.parquet",
	}, names)
	require.Equal(t, "00000000000000000007", ListStartAfter(lc))
	for _, bad := range []string{``, `{"version":`, `{"version":-1}`, `{"version":1,"parts":0}`, `{"version":"1"}`, `{"version":1,"v2Checkpoint":{"path":"x.json"}}`} {
		_, err := ParseLastCheckpoint([]byte(bad))
		require.ErrorIs(t, err, ErrMalformed, bad)
	}
}

func Test_ParseSchema(t *testing.T) {
	s := `{"type":"struct","fields":[
		{"name":"a","type":"decimal(38, 18)","nullable":false,"metadata":{}},
		{"name":"t","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"short","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
		{"name":"l","type":{"type":"array","elementType":"byte","containsNull":false},"nullable":true,"metadata":{}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"float","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}}]}`
	got, err := ParseSchema(s)
	require.NoError(t, err)
	require.Equal(t, []schema.Field{
		{Name: "a", Type: schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 18}},
		{Name: "t", Type: schema.Type{Kind: schema.Timestamp, Unit: prune.Micro, UTC: true}, Nullable: true},
		{Name: "ntz", Type: schema.Type{Kind: schema.Timestamp, Unit: prune.Micro}, Nullable: true},
		{Name: "s", Type: schema.Type{Kind: schema.Struct}, Nullable: true, Children: []schema.Field{{Name: "x", Type: schema.Type{Kind: schema.Int16}, Nullable: true}}},
		{Name: "l", Type: schema.Type{Kind: schema.List}, Nullable: true, Children: []schema.Field{{Name: "element", Type: schema.Type{Kind: schema.Int8}}}},
		{Name: "m", Type: schema.Type{Kind: schema.Map}, Nullable: true, Children: []schema.Field{
			{Name: "key", Type: schema.Type{Kind: schema.String}},
			{Name: "value", Type: schema.Type{Kind: schema.List}, Nullable: true, Children: []schema.Field{{Name: "element", Type: schema.Type{Kind: schema.Float32}, Nullable: true}}},
		}},
	}, got)

	tests := []struct {
		name, s string
		want    error
	}{
		{name: "not json", s: "{", want: ErrSchema},
		{name: "top not struct", s: `{"type":"array"}`, want: ErrSchema},
		{name: "unknown primitive", s: `{"type":"struct","fields":[{"name":"a","type":"uuid"}]}`, want: ErrSchema},
		{name: "decimal too precise", s: `{"type":"struct","fields":[{"name":"a","type":"decimal(39,0)"}]}`, want: ErrSchema},
		{name: "decimal scale above precision", s: `{"type":"struct","fields":[{"name":"a","type":"decimal(5,6)"}]}`, want: ErrSchema},
		{name: "duplicate by case", s: `{"type":"struct","fields":[{"name":"a","type":"long"},{"name":"A","type":"long"}]}`, want: ErrSchema},
		{name: "nameless", s: `{"type":"struct","fields":[{"type":"long"}]}`, want: ErrSchema},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchema(tc.s)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func Test_CheckProtocol(t *testing.T) {
	cm := func(mode string) *Metadata {
		return &Metadata{Configuration: map[string]*string{"delta.columnMapping.mode": &mode}}
	}
	tests := []struct {
		name string
		p    Protocol
		m    *Metadata
		msg  string // "" means supported
	}{
		{name: "v1", p: Protocol{MinReaderVersion: 1}},
		{name: "v2 without mapping", p: Protocol{MinReaderVersion: 2}, m: &Metadata{}},
		{name: "v2 mapping none", p: Protocol{MinReaderVersion: 2}, m: cm("none")},
		{name: "v2 mapping name", p: Protocol{MinReaderVersion: 2}, m: cm("name")},
		{name: "v3 mapping id", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"columnMapping"}}, m: cm("id")},
		{name: "v2 mapping unknown mode", p: Protocol{MinReaderVersion: 2}, m: cm("position"), msg: `columnMapping (mode "position")`},
		{name: "v3 supported features", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"timestampNtz", "v2Checkpoint", "vacuumProtocolCheck", "typeWidening", "typeWidening-preview", "deletionVectors"}}},
		{name: "writer features listed as reader features", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"appendOnly", "invariants",
			"checkConstraints", "changeDataFeed", "generatedColumns", "identityColumns", "allowColumnDefaults", "rowTracking", "domainMetadata",
			"clustering", "inCommitTimestamp", "icebergCompatV1", "icebergCompatV2"}}},
		{name: "variant", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"timestampNtz", "variantType", "variantType-preview", "variantShredding-preview"}}},
		{name: "catalog managed", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"catalogManaged"}}, msg: "catalogManaged"},
		{name: "unknown feature", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"teleportation"}}, msg: "teleportation"},
		{name: "two writer features in one name", p: Protocol{MinReaderVersion: 3, ReaderFeatures: []string{"appendOnly invariants"}}, msg: "appendOnly invariants"},
		{name: "reader version 4", p: Protocol{MinReaderVersion: 4}, msg: "reader version 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckProtocol(&tc.p, tc.m)
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrUnsupportedFeature)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func Test_ParseStats(t *testing.T) {
	fields := []schema.Field{
		{Name: "i", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
		{Name: "f", Type: schema.Type{Kind: schema.Float64}, Nullable: true},
		{Name: "f32", Type: schema.Type{Kind: schema.Float32}, Nullable: true},
		{Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
		{Name: "d", Type: schema.Type{Kind: schema.Decimal, Precision: 5, Scale: 2}, Nullable: true},
		{Name: "dt", Type: schema.Type{Kind: schema.Date}, Nullable: true},
		{Name: "ts", Type: schema.Type{Kind: schema.Timestamp, Unit: prune.Micro, UTC: true}, Nullable: true},
		{Name: "n", Type: schema.Type{Kind: schema.Struct}, Nullable: true, Children: []schema.Field{{Name: "x", Type: schema.Type{Kind: schema.Int64}, Nullable: true}}},
		{Name: "none", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	}
	st, err := ParseStats(`{"numRecords":10,"minValues":{"i":-3,"f":0.5,"s":"abc","d":1.25,"dt":"2024-01-01","ts":"2024-01-01T00:00:00.000Z","n":{"x":7}},
		"maxValues":{"i":70000,"f":2.5,"f32":1.1,"s":"ab\u00ff","d":99.5,"dt":"2024-01-31","ts":"2024-01-01T00:00:01.000Z","n":{"x":8}},
		"nullCount":{"i":0,"f":1,"s":2,"d":0,"dt":0,"ts":0,"n":{"x":3}}}`, fields)
	require.NoError(t, err)
	require.Equal(t, int64(10), st.NumRecords)
	get := func(p string) prune.ColStats { c, ok := st.Column(p); require.True(t, ok, p); return c }
	require.Equal(t, prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(-3), Max: prune.IntValue(70000), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10}, get("i"))
	require.Equal(t, int64(-1), get("f").NaNCount)
	require.Equal(t, prune.FloatValue(float64(float32(1.1))), get("f32").Max) // the stored float, not the double 1.1
	s := get("s")
	require.Equal(t, prune.StringValue("abc"), s.Min)
	require.Equal(t, prune.BytesValue([]byte("ab\xc3\xc0")), s.Max) // "ab\u00ff" is ab C3 BF; successor C3 C0
	require.True(t, !s.MinExact && !s.MaxExact)
	require.Equal(t, prune.DecimalInt64(125), get("d").Min)
	require.Equal(t, prune.DateValue(19723), get("dt").Min)
	require.Equal(t, prune.TimestampValue(1704067201000999), get("ts").Max)
	require.Equal(t, prune.IntValue(7), get("n.x").Min)
	require.Equal(t, int64(3), get("n.x").NullCount)
	_, ok := st.Column("none")
	require.True(t, !ok)

	loose, err := ParseStats(`{"numRecords":10,"tightBounds":false,"nullCount":{"i":4,"f":10,"s":0}}`, fields)
	require.NoError(t, err)
	_, ok = loose.Column("i") // 4 of 10 carries no information without tight bounds
	require.True(t, !ok)
	c, _ := loose.Column("f")
	require.Equal(t, int64(10), c.NullCount)

	bad, err := ParseStats(`{"numRecords":1,"minValues":{"i":"x","dt":"2024-02-30","d":1.234}}`, fields)
	require.NoError(t, err) // bad values are unknown, not errors
	_, ok = bad.Column("i")
	require.True(t, !ok)
	for _, s := range []string{`{`, `{"numRecords":-1}`, `{"numRecords":1.5}`, `[]`} {
		_, err := ParseStats(s, fields)
		require.ErrorIs(t, err, ErrMalformed, s)
	}
}

// Test_ParseSchema_typeChanges: delta.typeChanges (a JSON list, or a string holding one) is
// checked against the protocol's widenings and each fromType recorded on the field it names.
func Test_ParseSchema_typeChanges(t *testing.T) {
	field := func(typ, changes string) string {
		return `{"type":"struct","fields":[{"name":"c","type":` + typ + `,"nullable":true,"metadata":{"delta.typeChanges":` + changes + `}}]}`
	}
	dec := func(p, s int32) schema.Type { return schema.Type{Kind: schema.Decimal, Precision: p, Scale: s} }
	ok := []struct {
		name, s string
		at      func(f schema.Field) schema.Field // the field the changes apply to
		want    []schema.Type
	}{
		{name: "two steps", s: field(`"long"`, `[{"fromType":"short","toType":"integer"},{"fromType":"integer","toType":"long"}]`),
			want: []schema.Type{{Kind: schema.Int16}, {Kind: schema.Int32}}},
		{name: "as a string", s: field(`"double"`, `"[{\"fromType\":\"float\",\"toType\":\"double\"}]"`),
			want: []schema.Type{{Kind: schema.Float32}}},
		{name: "byte to double", s: field(`"double"`, `[{"fromType":"byte","toType":"double"}]`), want: []schema.Type{{Kind: schema.Int8}}},
		{name: "int to decimal", s: field(`"decimal(12,2)"`, `[{"fromType":"integer","toType":"decimal(12,2)"}]`), want: []schema.Type{{Kind: schema.Int32}}},
		{name: "decimal up", s: field(`"decimal(10, 4)"`, `[{"fromType":"decimal(6, 2)","toType":"decimal(10, 4)"}]`), want: []schema.Type{dec(6, 2)}},
		{name: "date to ntz", s: field(`"timestamp_ntz"`, `[{"fromType":"date","toType":"timestamp_ntz"}]`), want: []schema.Type{{Kind: schema.Date}}},
		{name: "map key", s: field(`{"type":"map","keyType":"double","valueType":"integer","valueContainsNull":true}`, `[{"fromType":"float","toType":"double","fieldPath":"key"}]`),
			at: func(f schema.Field) schema.Field { return f.Children[0] }, want: []schema.Type{{Kind: schema.Float32}}},
		{name: "map value in an array", s: field(`{"type":"array","elementType":{"type":"map","keyType":"string","valueType":"decimal(10, 4)","valueContainsNull":true},"containsNull":true}`,
			`[{"fromType":"decimal(6, 2)","toType":"decimal(10, 4)","fieldPath":"element.value"}]`),
			at: func(f schema.Field) schema.Field { return f.Children[0].Children[1] }, want: []schema.Type{dec(6, 2)}},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSchema(tc.s)
			require.NoError(t, err)
			f := got[0]
			if tc.at != nil {
				f = tc.at(f)
			}
			require.Equal(t, tc.want, f.Widened)
		})
	}
	bad := []struct {
		name, s string
		want    error
	}{
		{name: "long to double", s: field(`"double"`, `[{"fromType":"long","toType":"double"}]`), want: ErrUnsupportedFeature},
		{name: "narrowing", s: field(`"byte"`, `[{"fromType":"integer","toType":"byte"}]`), want: ErrUnsupportedFeature},
		{name: "string to binary", s: field(`"binary"`, `[{"fromType":"string","toType":"binary"}]`), want: ErrUnsupportedFeature},
		{name: "decimal scale without precision", s: field(`"decimal(10,4)"`, `[{"fromType":"decimal(10,2)","toType":"decimal(10,4)"}]`), want: ErrUnsupportedFeature},
		{name: "unknown type", s: field(`"long"`, `[{"fromType":"uuid","toType":"long"}]`), want: ErrUnsupportedFeature},
		{name: "not a list", s: field(`"long"`, `{"fromType":"integer"}`), want: ErrSchema},
		{name: "path not in the schema", s: field(`"long"`, `[{"fromType":"integer","toType":"long","fieldPath":"element"}]`), want: ErrSchema},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchema(tc.s)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

// Test_ParseStats_widened: statistics written before a widening stay usable where they are
// exact in the wider type; a float max read as a double is widened to the float it was.
func Test_ParseStats_widened(t *testing.T) {
	fields := []schema.Field{
		{Name: "f", Type: schema.Type{Kind: schema.Float64}, Nullable: true, Widened: []schema.Type{{Kind: schema.Float32}}},
		{Name: "b", Type: schema.Type{Kind: schema.Float64}, Nullable: true, Widened: []schema.Type{{Kind: schema.Int8}}},
		{Name: "i", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true, Widened: []schema.Type{{Kind: schema.Int32}}},
		{Name: "d", Type: schema.Type{Kind: schema.Timestamp, Unit: prune.Micro}, Nullable: true, Widened: []schema.Type{{Kind: schema.Date}}},
		{Name: "u", Type: schema.Type{Kind: schema.Timestamp, Unit: prune.Micro, UTC: true}, Nullable: true},
	}
	st, err := ParseStats(`{"numRecords":2,"minValues":{"f":0.1,"b":-3,"i":5,"d":"2024-01-01","u":"2024-01-01"},
		"maxValues":{"f":0.1,"b":7,"i":6,"d":"2024-01-02"}}`, fields)
	require.NoError(t, err)
	get := func(p string) prune.ColStats { c, ok := st.Column(p); require.True(t, ok, p); return c }
	f := get("f")
	require.Equal(t, prune.FloatValue(0.1), f.Min) // below the float 0.1
	require.Equal(t, prune.FloatValue(float64(float32(0.1))), f.Max)
	require.True(t, !f.MinExact && !f.MaxExact)
	b := get("b")
	require.Equal(t, prune.FloatValue(-3), b.Min)
	require.True(t, b.MinExact && b.MaxExact)
	require.Equal(t, prune.DecimalInt64(500), get("i").Min)
	d := get("d")
	require.Equal(t, prune.TimestampValue(1704067200000000), d.Min) // midnight
	require.Equal(t, prune.TimestampValue(1704153600000999), d.Max) // bounds are to the millisecond
	_, ok := st.Column("u")                                         // a bare date is no instant
	require.True(t, !ok)
}
