package avro

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// enc builds Avro binary encodings for the tests.
type enc []byte

func (e enc) long(v int64) enc { return binary.AppendUvarint(e, uint64(v<<1^v>>63)) }
func (e enc) str(s string) enc { return append(e.long(int64(len(s))), s...) }
func (e enc) raw(b ...byte) enc {
	return append(e, b...)
}

var testSync = []byte("0123456789abcdef")

// container is an object container file: header metadata (avro.schema, then extra), and
// blocks of (count, encoded objects), compressed with codec.
func container(schema, codec string, extra map[string]string, blocks ...block) []byte {
	meta := map[string]string{"avro.schema": schema}
	if codec != "" {
		meta["avro.codec"] = codec
	}
	for k, v := range extra {
		meta[k] = v
	}
	e := enc("Obj\x01").long(int64(len(meta)))
	for k, v := range meta {
		e = e.str(k).str(v)
	}
	e = e.long(0).raw(testSync...)
	for _, b := range blocks {
		data := []byte(b.data)
		switch codec {
		case "deflate":
			var buf bytes.Buffer
			w, _ := flate.NewWriter(&buf, flate.BestSpeed)
			w.Write(data)
			w.Close()
			data = buf.Bytes()
		case "snappy":
			data = binary.BigEndian.AppendUint32(snappy.Encode(nil, data), crc32.ChecksumIEEE(data))
		case "zstandard":
			// A streaming writer, as Avro's: the frame does not say its decoded size.
			var buf bytes.Buffer
			w, _ := zstd.NewWriter(&buf)
			w.Write(data)
			w.Close()
			data = buf.Bytes()
		}
		e = e.long(b.count).long(int64(len(data))).raw(data...).raw(testSync...)
	}
	return e
}

type block struct {
	count int64
	data  enc
}

const entrySchema = `{"type":"record","name":"root","namespace":"ns","fields":[
 {"name":"status","type":["null","int"],"field-id":0},
 {"name":"path","type":"string"},
 {"name":"kind","type":{"type":"enum","name":"K","symbols":["A","B"]}},
 {"name":"id","type":{"type":"fixed","name":"F","size":2}},
 {"name":"tags","type":{"type":"map","values":"long"}},
 {"name":"xs","type":{"type":"array","items":"double"}},
 {"name":"f","type":"float"},
 {"name":"ok","type":"boolean"},
 {"name":"b","type":"bytes"},
 {"name":"again","type":["null","K"]}]}`

// entry encodes one value of entrySchema.
func entry(status int64, path string) enc {
	e := enc{}
	if status < 0 {
		e = e.long(0)
	} else {
		e = e.long(1).long(status)
	}
	e = e.str(path).long(1).raw('x', 'y')
	e = e.long(-1).long(4).str("k").long(-3).long(0) // a map block with a byte size
	e = e.long(1).raw(0, 0, 0, 0, 0, 0, 0xf0, 0x3f).long(0)
	e = e.raw(0, 0, 0xc0, 0x3f).raw(1).str("\x00\x01").long(1).long(0)
	return e
}

func wantEntry(status any, path string) map[string]any {
	return map[string]any{"status": status, "path": path, "kind": "B", "id": []byte("xy"),
		"tags": map[string]any{"k": int64(-3)}, "xs": []any{1.0}, "f": float32(1.5), "ok": true,
		"b": []byte{0, 1}, "again": "A"}
}

func Test_Decode(t *testing.T) {
	tests := []struct {
		name string
		file []byte
		want []any
		meta string // a header key that must be there
	}{
		{name: "null codec, two blocks", file: container(entrySchema, "", nil, block{1, entry(1, "a")}, block{2, append(entry(-1, "b"), entry(2, "c")...)}),
			want: []any{wantEntry(int64(1), "a"), wantEntry(nil, "b"), wantEntry(int64(2), "c")}},
		{name: "deflate codec, writer keys kept", file: container(entrySchema, "deflate", map[string]string{"format-version": "2"}, block{1, entry(0, "d")}),
			want: []any{wantEntry(int64(0), "d")}, meta: "format-version"},
		{name: "codec null spelled out", file: container(entrySchema, "null", nil, block{1, entry(0, "e")}), want: []any{wantEntry(int64(0), "e")}},
		{name: "snappy codec", file: container(entrySchema, "snappy", nil, block{1, entry(3, "s")}, block{1, entry(4, "t")}),
			want: []any{wantEntry(int64(3), "s"), wantEntry(int64(4), "t")}},
		{name: "zstandard codec", file: container(entrySchema, "zstandard", nil, block{2, append(entry(5, "z"), entry(6, "y")...)}),
			want: []any{wantEntry(int64(5), "z"), wantEntry(int64(6), "y")}},
		{name: "zstandard, a block past the decoder's first buffer", file: container(`"string"`, "zstandard", nil,
			block{1, enc{}.long(1 << 20).raw(bytes.Repeat([]byte("m"), 1<<20)...)}), want: []any{strings.Repeat("m", 1<<20)}},
		{name: "no blocks", file: container(entrySchema, "", nil), want: nil},
		{name: "a self-referencing record", file: container(`{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}`, "",
			nil, block{1, enc{}.long(1).long(1).long(2).long(0)}),
			want: []any{map[string]any{"v": int64(1), "next": map[string]any{"v": int64(2), "next": nil}}}},
		{name: "a primitive schema with a type object", file: container(`{"type":"long","logicalType":"timestamp-millis"}`, "", nil, block{2, enc{}.long(-5).long(7)}),
			want: []any{int64(-5), int64(7)}},
		{name: "records of nulls only", file: container(`{"type":"record","name":"r","fields":[{"name":"n","type":"null"}]}`, "", nil, block{3, enc{}}),
			want: []any{map[string]any{"n": nil}, map[string]any{"n": nil}, map[string]any{"n": nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Decode(tc.file, 0)
			require.NoError(t, err)
			require.Equal(t, tc.want, f.Values)
			if tc.meta != "" {
				_, ok := f.Meta[tc.meta]
				require.True(t, ok, tc.meta)
			}
		})
	}
}

func Test_Decode_malformed(t *testing.T) {
	good := container(entrySchema, "", nil, block{1, entry(1, "a")})
	long := container(`"long"`, "", nil, block{1, enc{}.long(1)})
	deep := strings.Repeat(`{"type":"array","items":`, MaxDepth+2) + `"int"` + strings.Repeat("}", MaxDepth+2)
	tests := []struct {
		name string
		file []byte
		max  int64
		want error
	}{
		{name: "empty", file: nil, want: ErrMalformed},
		{name: "bad magic", file: append([]byte("Obj\x02"), good[4:]...), want: ErrMalformed},
		{name: "truncated header", file: good[:20], want: ErrMalformed},
		{name: "truncated block", file: good[:len(good)-20], want: ErrMalformed},
		{name: "truncated sync marker", file: good[:len(good)-3], want: ErrMalformed},
		{name: "wrong sync marker", file: append(bytes.Clone(good[:len(good)-1]), 'X'), want: ErrMalformed},
		{name: "no schema", file: append(enc("Obj\x01").long(0), testSync...), want: ErrSchema},
		{name: "schema not JSON", file: container(`{`, "", nil), want: ErrSchema},
		{name: "schema names an undefined type", file: container(`{"type":"record","name":"r","fields":[{"name":"a","type":"Nope"}]}`, "", nil), want: ErrSchema},
		{name: "schema nests too deep", file: container(deep, "", nil), want: ErrLimit},
		{name: "codec bzip2", file: container(`"long"`, "bzip2", nil), want: ErrUnsupported},
		{name: "snappy checksum wrong", file: flipLast(container(`"long"`, "snappy", nil, block{1, enc{}.long(7)}), 17), want: ErrMalformed},
		{name: "snappy block without checksum", file: container(`"long"`, "", map[string]string{"avro.codec": "snappy"}, block{1, enc{}.raw(1, 2)}), want: ErrMalformed},
		{name: "zstandard block not zstd", file: container(`"long"`, "", map[string]string{"avro.codec": "zstandard"}, block{1, enc{}.raw(1, 2, 3, 4, 5, 6, 7, 8)}), want: ErrMalformed},
		{name: "zstandard past the cap", file: container(`"string"`, "zstandard", nil, block{1, enc{}.long(1 << 20).raw(bytes.Repeat([]byte("m"), 1<<20)...)}),
			max: 1 << 19, want: ErrLimit},
		{name: "block size past the end", file: append(long[:len(long)-16-2], enc{}.long(1).long(1000)...), want: ErrMalformed},
		{name: "block count beyond its bytes", file: container(`"long"`, "", nil, block{1 << 40, enc{}.long(1)}), want: ErrMalformed},
		{name: "negative block count", file: container(`"long"`, "", nil, block{-1, enc{}.long(1)}), want: ErrMalformed},
		{name: "bytes left in a block", file: container(`"long"`, "", nil, block{1, enc{}.long(1).long(2)}), want: ErrMalformed},
		{name: "string length past the block", file: container(`"string"`, "", nil, block{1, enc{}.long(1 << 30)}), want: ErrMalformed},
		{name: "union branch out of range", file: container(`["null","int"]`, "", nil, block{1, enc{}.long(2)}), want: ErrMalformed},
		{name: "enum index out of range", file: container(`{"type":"enum","name":"E","symbols":["a"]}`, "", nil, block{1, enc{}.long(1)}), want: ErrMalformed},
		{name: "array count beyond its bytes", file: container(`{"type":"array","items":"long"}`, "", nil, block{1, enc{}.long(1 << 40)}), want: ErrMalformed},
		{name: "array of nulls past the cap", file: container(`{"type":"array","items":"null"}`, "", nil, block{1, enc{}.long(1 << 19).long(1 << 19).long(0)}), max: 1 << 20, want: ErrLimit},
		{name: "bad varint", file: container(`"long"`, "", nil, block{1, enc{}.raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)}), want: ErrMalformed},
		{name: "deflate block not deflate", file: append(container(`"long"`, "deflate", nil)[:0:0], corruptDeflate()...), want: ErrMalformed},
		{name: "deflate block past the cap", file: container(`"string"`, "deflate", nil, block{1, enc{}.str(strings.Repeat("a", 1<<16))}), max: 1 << 10, want: ErrLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.file, tc.max)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

// corruptDeflate is a deflate container whose one block is not a deflate stream.
func corruptDeflate() []byte {
	e := enc("Obj\x01").long(2).str("avro.schema").str(`"long"`).str("avro.codec").str("deflate").long(0).raw(testSync...)
	return e.long(1).long(3).raw(0xff, 0xff, 0xff).raw(testSync...)
}

// corpusAvro are the Avro manifests and manifest lists of the Iceberg test tables.
func corpusAvro(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "*", "metadata", "*.avro"))
	more, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "*", "*", "metadata", "*.avro"))
	return append(files, more...)
}

// Test_Decode_corpus: every manifest and manifest list of the test tables decodes, each
// value a record with the fields Iceberg readers look up.
func Test_Decode_corpus(t *testing.T) {
	files := corpusAvro(t)
	require.True(t, len(files) > 50, len(files))
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := Decode(b, 0)
		require.NoError(t, err, p)
		for _, v := range f.Values {
			r, ok := v.(map[string]any)
			require.True(t, ok, p)
			_, entryOK := r["data_file"]
			_, listOK := r["manifest_path"]
			require.True(t, entryOK || listOK, p)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range corpusAvro(f) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, codec := range []string{"deflate", "snappy", "zstandard"} {
		f.Add(container(entrySchema, codec, nil, block{1, entry(1, "a")}))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Decode(b, 1<<20) //nolint:errcheck // only panics and hangs are failures
	})
}

// flipLast flips a bit of the byte back bytes before the end of file (inside the last block's
// data when back passes the sync marker).
func flipLast(file []byte, back int) []byte {
	out := bytes.Clone(file)
	out[len(out)-back] ^= 1
	return out
}
