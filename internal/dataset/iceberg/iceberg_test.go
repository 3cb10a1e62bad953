package iceberg

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/internal/variant"
)

func Test_MetadataVersion(t *testing.T) {
	tests := []struct {
		name string
		file string
		v    int64
		ok   bool
	}{
		{name: "Hadoop vN", file: "v5.metadata.json", v: 5, ok: true},
		{name: "gzipped before", file: "v12.gz.metadata.json", v: 12, ok: true},
		{name: "gzipped after", file: "v3.metadata.json.gz", v: 3, ok: true},
		{name: "catalog NNNNN-uuid", file: "00011-31179cfb-920d-47df-af37-7362d4028557.metadata.json", v: 11, ok: true},
		{name: "under a folder", file: "metadata/00002-x.metadata.json", v: 2, ok: true},
		{name: "a manifest", file: "snap-1-1-x.avro"},
		{name: "the hint", file: "version-hint.text"},
		{name: "no number", file: "vx.metadata.json"},
		{name: "bare suffix", file: ".metadata.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := MetadataVersion(tc.file)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.v, v)
		})
	}
}

func Test_locate(t *testing.T) {
	listed := []string{"v1.metadata.json", "v2.metadata.json", "v10.metadata.json", "snap-1.avro", "version-hint.text"}
	catalog := []string{"00000-a.metadata.json", "00002-c.metadata.json", "00001-b.metadata.json", "x-m0.avro"}
	tests := []struct {
		name  string
		hint  string // "" for none
		names []string
		want  string
		ok    bool
	}{
		{name: "newest by number, not by name", names: listed, want: "v10.metadata.json", ok: true},
		{name: "newest catalog file", names: catalog, want: "00002-c.metadata.json", ok: true},
		{name: "nothing listed", names: []string{"a.avro"}},
		{name: "hint N", hint: "2", names: listed, want: "v2.metadata.json", ok: true},
		{name: "hint N and a newline", hint: "2\n", names: listed, want: "v2.metadata.json", ok: true},
		{name: "hint N of a catalog table", hint: "1", names: catalog, want: "00001-b.metadata.json", ok: true},
		{name: "hint a stem", hint: "00001-b", names: catalog, want: "00001-b.metadata.json", ok: true},
		{name: "hint a file name", hint: "00000-a.metadata.json\n", names: catalog, want: "00000-a.metadata.json", ok: true},
		{name: "hint a path", hint: "s3://b/t/metadata/v1.metadata.json", names: listed, want: "v1.metadata.json", ok: true},
		{name: "hint gzipped", hint: "4", names: []string{"v4.gz.metadata.json"}, want: "v4.gz.metadata.json", ok: true},
		{name: "hint to nothing", hint: "9", names: listed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			var ok bool
			if tc.hint == "" {
				got, ok = Newest(tc.names)
			} else {
				got, ok = FromHint([]byte(tc.hint), tc.names)
			}
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := HintCandidates([]byte(" \n"))
	require.ErrorIs(t, err, ErrMalformed)
	c, err := HintCandidates([]byte("7"))
	require.NoError(t, err)
	require.Equal(t, []string{"v7.metadata.json", "v7.gz.metadata.json", "v7.metadata.json.gz"}, c)
}

func Test_Relative(t *testing.T) {
	tests := []struct {
		name, loc, path, want string
		err                   error
	}{
		{name: "s3", loc: "s3://b/t", path: "s3://b/t/data/x.parquet", want: "data/x.parquet"},
		{name: "location with a slash", loc: "s3a://b/t/", path: "s3a://b/t/metadata/snap.avro", want: "metadata/snap.avro"},
		{name: "s3 written, s3a located", loc: "s3a://b/t", path: "s3://b/t/data/x.parquet", want: "data/x.parquet"},
		{name: "gs", loc: "gs://b/db/t", path: "gs://b/db/t/data/a=1/x.parquet", want: "data/a=1/x.parquet"},
		{name: "hdfs with a port", loc: "hdfs://nn:8020/warehouse/t", path: "hdfs://nn:8020/warehouse/t/data/x.parquet", want: "data/x.parquet"},
		{name: "file: one slash", loc: "file:/tmp/t", path: "file:/tmp/t/data/x.parquet", want: "data/x.parquet"},
		{name: "file: three slashes vs one", loc: "file:/tmp/t", path: "file:///tmp/t/data/x.parquet", want: "data/x.parquet"},
		{name: "bare absolute path", loc: "/tmp/iceberg/t1", path: "/tmp/iceberg/t1/data/ts_day=2023-03-01/x.parquet", want: "data/ts_day=2023-03-01/x.parquet"},
		{name: "another table", loc: "s3://b/t", path: "s3://b/t2/data/x.parquet", err: ErrOutsideTable},
		{name: "the location itself", loc: "s3://b/t", path: "s3://b/t/", err: ErrOutsideTable},
		{name: "escape by dots is a name", loc: "/t", path: "/t/../etc/passwd", want: "../etc/passwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Relative(tc.loc, tc.path)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_Locate(t *testing.T) {
	tests := []struct {
		name, loc, path, want string
		abs                   bool
		err                   error
	}{
		{name: "under the location", loc: "s3://b/t", path: "s3://b/t/data/x.parquet", want: "data/x.parquet"},
		{name: "dots under the location stay relative", loc: "s3://b/t", path: "s3://b/t/../u/x.parquet", want: "../u/x.parquet"},
		{name: "http URL outside", loc: "s3://b/t", path: "http://127.0.0.1:1/x.avro", want: "http://127.0.0.1:1/x.avro", abs: true},
		{name: "https URL outside", loc: "s3://b/t", path: "HTTPS://h/x.avro", want: "HTTPS://h/x.avro", abs: true},
		{name: "file: URL outside", loc: "s3://b/t", path: "file:///etc/passwd", want: "file:///etc/passwd", abs: true},
		{name: "bare absolute path outside", loc: "/tmp/t", path: "/etc/passwd", want: "/etc/passwd", abs: true},
		{name: "s3 outside", loc: "s3://b/t", path: "s3://b/t2/x.parquet", err: ErrOutsideTable},
		{name: "relative outside", loc: "s3://b/t", path: "data/x.parquet", err: ErrOutsideTable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, abs, err := Locate(tc.loc, tc.path)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.abs, abs)
		})
	}
}

func Test_Decompress(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(`{"a":1}`))
	w.Close()
	for _, name := range []string{"v1.gz.metadata.json", "v1.metadata.json.gz", "v1.metadata.json"} {
		got, err := Decompress(name, buf.Bytes())
		require.NoError(t, err, name)
		require.Equal(t, `{"a":1}`, string(got), name)
	}
	got, err := Decompress("v1.metadata.json", []byte(`{}`))
	require.NoError(t, err)
	require.Equal(t, `{}`, string(got))
	_, err = Decompress("v1.gz.metadata.json", []byte(`{}`))
	require.ErrorIs(t, err, ErrMalformed)
}

func Test_ArrowFields(t *testing.T) {
	m, err := ParseMetadata([]byte(`{"format-version":2,"location":"s3://b/t","current-schema-id":1,"schemas":[{"schema-id":1,"fields":[
	 {"id":1,"name":"i","required":true,"type":"int"},
	 {"id":2,"name":"d","required":false,"type":"decimal(9, 2)"},
	 {"id":3,"name":"ts","required":false,"type":"timestamptz"},
	 {"id":4,"name":"u","required":false,"type":"uuid"},
	 {"id":5,"name":"l","required":false,"type":{"type":"list","element-id":6,"element":"string","element-required":false}},
	 {"id":7,"name":"m","required":false,"type":{"type":"map","key-id":8,"key":"string","value-id":9,"value":{"type":"struct","fields":[{"id":10,"name":"x","required":false,"type":"fixed[3]"}]}}}]}]}`))
	require.NoError(t, err)
	s, err := m.SchemaOf(nil, false)
	require.NoError(t, err)
	fs, err := ArrowFields(s.Fields)
	require.NoError(t, err)
	id := func(n string) [][2]string { return [][2]string{{"PARQUET:field_id", n}} }
	require.Equal(t, arrowipc.Field{Name: "i", Nullable: true, Metadata: id("1"), Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}}, fs[0])
	require.Equal(t, arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 9, Scale: 2}, fs[1].Type)
	require.Equal(t, arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond, TZ: "UTC"}, fs[2].Type)
	require.Equal(t, append(id("4"), uuidMeta...), fs[3].Metadata)
	require.Equal(t, id("6"), fs[4].Type.Elem.Metadata)
	require.Equal(t, id("10"), fs[5].Type.Elem.Type.Fields[1].Type.Fields[0].Metadata)
	require.Equal(t, 3, fs[5].Type.Elem.Type.Fields[1].Type.Fields[0].Type.ByteWidth)

	// A v3 variant is the canonical unshredded Arrow variant (files are cast to it).
	vm, err := ParseMetadata([]byte(`{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"v","type":"variant"}]}]}`))
	require.NoError(t, err)
	vf, err := ArrowFields(vm.Schemas[0].Fields)
	require.NoError(t, err)
	require.Equal(t, arrowipc.Field{Name: "v", Nullable: true, Metadata: append(id("1"), variant.ArrowMeta...), Type: variant.ArrowType}, vf[0])
	// A v3 unknown is Arrow's null type (always null, never stored).
	um, err := ParseMetadata([]byte(`{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"u","type":"unknown"}]}]}`))
	require.NoError(t, err)
	uf, err := ArrowFields(um.Schemas[0].Fields)
	require.NoError(t, err)
	require.Equal(t, arrowipc.DataType{ID: arrowipc.Null}, uf[0].Type)

	// v3 geometry and geography: WKB typed geoarrow.wkb with the type's CRS and edges.
	for _, tc := range []struct{ typ, meta string }{
		{"geometry", `{"crs":"OGC:CRS84","crs_type":"authority_code"}`},
		{"geometry(srid:3857)", `{"crs":"3857","crs_type":"srid"}`},
		{"geography", `{"crs":"OGC:CRS84","crs_type":"authority_code","edges":"spherical"}`},
		{"geography(OGC:CRS84, karney)", `{"crs":"OGC:CRS84","crs_type":"authority_code","edges":"karney"}`},
		{"geography(srid:4326)", `{"crs":"4326","crs_type":"srid","edges":"spherical"}`},
	} {
		gm, err := ParseMetadata([]byte(`{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"g","type":"` + tc.typ + `"}]}]}`))
		require.NoError(t, err, tc.typ)
		gf, err := ArrowFields(gm.Schemas[0].Fields)
		require.NoError(t, err, tc.typ)
		require.Equal(t, arrowipc.DataType{ID: arrowipc.Binary}, gf[0].Type, tc.typ)
		require.Equal(t, append(id("1"), [2]string{"ARROW:extension:name", "geoarrow.wkb"}, [2]string{"ARROW:extension:metadata", tc.meta}), gf[0].Metadata, tc.typ)
	}

	for _, tc := range []struct{ name, typ string }{{"a type this reader does not know", `"geometri"`}, {"decimal too wide", `"decimal(39,0)"`}, {"bad fixed", `"fixed[x]"`}} {
		m, err := ParseMetadata([]byte(`{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"c","type":` + tc.typ + `}]}]}`))
		require.NoError(t, err, tc.name)
		_, err = ArrowFields(m.Schemas[0].Fields)
		require.Error(t, err, tc.name)
	}
}

func Test_ParseMetadata(t *testing.T) {
	tests := []struct {
		name string
		js   string
		err  error
		snap int64 // the current snapshot id; 0 for none
	}{
		{name: "v1 with schema and no current snapshot", js: `{"format-version":1,"location":"/t","schema":{"schema-id":0,"fields":[]},"current-snapshot-id":-1}`},
		{name: "v2 current snapshot", js: `{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],"current-snapshot-id":7,"snapshots":[{"snapshot-id":7,"manifest-list":"/t/m.avro"}]}`, snap: 7},
		{name: "v3 null current snapshot", js: `{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],"current-snapshot-id":null}`},
		{name: "current snapshot missing", js: `{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],"current-snapshot-id":8}`, err: ErrSnapshotNotFound},
		{name: "format 4", js: `{"format-version":4,"location":"/t","schemas":[{"schema-id":0,"fields":[]}]}`, err: ErrUnsupportedFeature},
		{name: "no location", js: `{"format-version":2,"schemas":[{"schema-id":0,"fields":[]}]}`, err: ErrMalformed},
		{name: "no schema", js: `{"format-version":2,"location":"/t"}`, err: ErrMalformed},
		{name: "encrypted", js: `{"format-version":3,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],"encryption-keys":[{}]}`, err: ErrUnsupportedFeature},
		{name: "a list without its element", js: `{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[{"id":1,"name":"l","type":{"type":"list"}}]}]}`, err: ErrMalformed},
		{name: "not JSON", js: `{`, err: ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMetadata([]byte(tc.js))
			var s *Snapshot
			if err == nil {
				s, err = m.Current(nil)
			}
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.snap != 0, s != nil)
			if s != nil {
				require.Equal(t, tc.snap, s.ID)
			}
		})
	}
}

func pathBounds(lo, hi string) Metrics {
	return Metrics{Lower: map[int][]byte{filePathFieldID: []byte(lo)}, Upper: map[int][]byte{filePathFieldID: []byte(hi)}}
}

func Test_PlanDeletes(t *testing.T) {
	part := func(v int64) map[string]any { return map[string]any{"p": v} }
	data := []DataFile{{Path: "a", Sequence: 1, Partition: part(1)}, {Path: "b", Sequence: 3, Partition: part(2)}}
	pos := func(seq int64) DataFile {
		return DataFile{Content: ContentPosDeletes, Format: "PARQUET", Path: "d", Sequence: seq, Partition: part(1)}
	}
	eq := func(seq int64, p map[string]any) DataFile {
		return DataFile{Content: ContentEqDeletes, Format: "PARQUET", Path: "e", Sequence: seq, Partition: p}
	}
	dv := DataFile{Content: ContentPosDeletes, Format: "PUFFIN", Path: "v", Sequence: 5, Referenced: "b", ContentOffset: 4, ContentSize: 40}
	with := func(d DataFile, f func(*DataFile)) DataFile { f(&d); return d }
	none, first := Applied{DV: -1}, Applied{DV: -1, Positions: []int{0}}
	tests := []struct {
		name string
		dels []DataFile
		want []Applied
		err  error
	}{
		{name: "position delete of a later sequence, same partition", dels: []DataFile{pos(2)}, want: []Applied{first, none}},
		{name: "position delete of the same sequence applies", dels: []DataFile{pos(1)}, want: []Applied{first, none}},
		{name: "dangling position delete", dels: []DataFile{pos(0)}, want: []Applied{none, none}},
		{name: "position delete of another partition", dels: []DataFile{with(pos(9), func(d *DataFile) { d.Partition = part(3) })}, want: []Applied{none, none}},
		{name: "position delete of another spec", dels: []DataFile{with(pos(9), func(d *DataFile) { d.SpecID = 1 })}, want: []Applied{none, none}},
		{name: "file-scoped by referenced_data_file, any partition", dels: []DataFile{with(pos(9), func(d *DataFile) { d.Referenced = "b" })},
			want: []Applied{none, {DV: -1, Positions: []int{0}}}},
		{name: "file-scoped by equal file_path bounds", dels: []DataFile{with(pos(9), func(d *DataFile) { d.Metrics = pathBounds("b", "b") })},
			want: []Applied{none, {DV: -1, Positions: []int{0}}}},
		{name: "file_path bounds exclude the data file", dels: []DataFile{with(pos(9), func(d *DataFile) { d.Metrics = pathBounds("a0", "a9") })},
			want: []Applied{none, none}},
		{name: "equality delete of the same sequence does not apply", dels: []DataFile{eq(1, part(1))}, want: []Applied{none, none}},
		{name: "equality delete of a later sequence, same partition", dels: []DataFile{eq(2, part(1))}, want: []Applied{{DV: -1, Equality: []int{0}}, none}},
		{name: "global equality delete", dels: []DataFile{eq(4, nil)}, want: []Applied{{DV: -1, Equality: []int{0}}, {DV: -1, Equality: []int{0}}}},
		{name: "referenced file gone", dels: []DataFile{with(pos(5), func(d *DataFile) { d.Referenced = "z" })}, want: []Applied{none, none}},
		{name: "deletion vector replaces position deletes", dels: []DataFile{with(pos(4), func(d *DataFile) { d.Partition = part(2) }), dv},
			want: []Applied{none, {DV: 1}}},
		{name: "deletion vector older than its file", dels: []DataFile{with(dv, func(d *DataFile) { d.Sequence = 2 })}, want: []Applied{none, none}},
		{name: "two deletion vectors", dels: []DataFile{dv, with(dv, func(d *DataFile) { d.Path = "w" })}, err: ErrMalformed},
		{name: "deletion vector without its place", dels: []DataFile{with(dv, func(d *DataFile) { d.ContentOffset = -1 })}, err: ErrMalformed},
		{name: "an ORC position delete that applies", dels: []DataFile{with(pos(2), func(d *DataFile) { d.Format = "ORC" })}, err: ErrUnsupportedFeature},
		{name: "an ORC position delete that dangles", dels: []DataFile{with(pos(0), func(d *DataFile) { d.Format = "ORC" })}, want: []Applied{none, none}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanDeletes(data, tc.dels)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func corpusMetadata(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "*", "metadata", "*.metadata.json"))
	return files
}

// Test_ParseMetadata_corpus: every metadata file of the test tables parses, and its
// current schema converts.
func Test_ParseMetadata_corpus(t *testing.T) {
	files := corpusMetadata(t)
	require.True(t, len(files) > 25, len(files))
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		m, err := ParseMetadata(b)
		require.NoError(t, err, p)
		s, err := m.Current(nil)
		require.NoError(t, err, p)
		sch, err := m.SchemaOf(s, false)
		require.NoError(t, err, p)
		_, err = ArrowFields(sch.Fields)
		require.NoError(t, err, p)
	}
}

func FuzzParseMetadata(f *testing.F) {
	for _, p := range corpusMetadata(f) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMetadata(b)
		if err != nil {
			return
		}
		m.NameMapping() //nolint:errcheck // only panics are failures
		if s, err := m.Current(nil); err == nil {
			if sch, err := m.SchemaOf(s, false); err == nil {
				ArrowFields(sch.Fields) //nolint:errcheck // only panics are failures
			}
		}
	})
}

// Test_SchemaOf: the current snapshot reads with the current schema (a column renamed after
// the snapshot was written reads under its new name); time travel with the snapshot's own.
func Test_SchemaOf(t *testing.T) {
	m, err := ParseMetadata([]byte(`{"format-version":2,"location":"/t","current-schema-id":1,"current-snapshot-id":5,
		"schemas":[{"schema-id":0,"fields":[{"id":1,"name":"date","type":"date"}]},{"schema-id":1,"fields":[{"id":1,"name":"event_date","type":"date"}]}],
		"snapshots":[{"snapshot-id":5,"schema-id":0,"manifest-list":"/t/m.avro"}]}`))
	require.NoError(t, err)
	s, err := m.Current(nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		travel bool
		want   string
	}{{name: "current", want: "event_date"}, {name: "time travel", travel: true, want: "date"}} {
		sch, err := m.SchemaOf(s, tc.travel)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, sch.Fields[0].Name, tc.name)
	}
}

// Test_AsOf: the snapshot current at a time is the latest snapshot-log entry at or before it
// (a rollback in the log wins over a later-written snapshot); without a log, the snapshots'
// own timestamps; before the first snapshot, ErrSnapshotNotFound.
func Test_AsOf(t *testing.T) {
	snaps := `"snapshots":[{"snapshot-id":1,"timestamp-ms":100},{"snapshot-id":2,"timestamp-ms":200},{"snapshot-id":3,"timestamp-ms":300}]`
	withLog, err := ParseMetadata([]byte(`{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],` + snaps +
		`,"snapshot-log":[{"snapshot-id":1,"timestamp-ms":100},{"snapshot-id":2,"timestamp-ms":200},{"snapshot-id":1,"timestamp-ms":250},{"snapshot-id":3,"timestamp-ms":300}]}`))
	require.NoError(t, err)
	noLog, err := ParseMetadata([]byte(`{"format-version":2,"location":"/t","schemas":[{"schema-id":0,"fields":[]}],` + snaps + `}`))
	require.NoError(t, err)
	tests := []struct {
		name string
		m    *Metadata
		ms   int64
		want int64 // 0: ErrSnapshotNotFound
	}{
		{name: "at the first", m: withLog, ms: 100, want: 1},
		{name: "between", m: withLog, ms: 199, want: 1},
		{name: "at the second", m: withLog, ms: 200, want: 2},
		{name: "after a rollback", m: withLog, ms: 260, want: 1},
		{name: "after the last", m: withLog, ms: 1 << 50, want: 3},
		{name: "before the first", m: withLog, ms: 99},
		{name: "no log: by snapshot time", m: noLog, ms: 260, want: 2},
		{name: "no log: before the first", m: noLog, ms: 0},
	}
	for _, tc := range tests {
		s, err := tc.m.AsOf(tc.ms)
		if tc.want == 0 {
			require.ErrorIs(t, err, ErrSnapshotNotFound, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, s.ID, tc.name)
	}
}
