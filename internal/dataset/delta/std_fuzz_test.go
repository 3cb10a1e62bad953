package delta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// The differential targets: the jsonv readers against the encoding/json ones (std_test.go).
// They read the same documents alike but for encoding/json's quirks the jsonv readers leave
// out: member names matched without regard to case, and a repeated member merged into the
// first (jsonQuirky skips such inputs).

// memberNames are the member names the readers look up by name (not map keys).
var memberNames = strings.Fields(`add anchor appId baseRowId cardinality cdc checkpointMetadata checksum
	commitInfo configuration containsNull crc createdTime dataChange deletionTimestamp deletionVector
	description domain domainMetadata elementType fieldPath fields files format fromType hasCrc id
	inCommitTimestamp keyType lastUpdated maxValues metaData metadata minReaderVersion minValues
	minWriterVersion modTime modificationTime name nullCount nullable numOfAddFiles numRecords offset
	options partitionColumns partitionValues parts path pathOrInlineDv protocol provider readerFeatures
	remove removed schemaString sidecar size sizeInBytes stats storageType tags tightBounds toType txn
	type v2Checkpoint valueContainsNull valueType version writerFeatures`)

// jsonQuirky reports whether b, or a JSON document in one of its strings, has a member
// encoding/json reads otherwise than the jsonv readers: a known name in another case, or a
// name given twice (in any case). A document with data after it is judged by its first value,
// which the readers that take the first value (ParseStats) read.
func jsonQuirky(b []byte) bool {
	v, err := jsonv.Parse(b)
	if err != nil {
		v, _, err = jsonv.ParseFirst(b)
	}
	return err == nil && quirky(&v)
}

func quirky(v *jsonv.Value) bool {
	switch v.Kind {
	case jsonv.String:
		// schemaString, stats and typeChanges hold documents of their own.
		if s := strings.TrimSpace(v.S); s != "" && (s[0] == '{' || s[0] == '[') {
			if inner, _, err := jsonv.ParseFirst([]byte(s)); err == nil && quirky(&inner) {
				return true
			}
		}
	case jsonv.Array:
		for i := range v.Elems {
			if quirky(&v.Elems[i]) {
				return true
			}
		}
	case jsonv.Object:
		for i, k := range v.Keys {
			for _, n := range memberNames {
				if k != n && strings.EqualFold(k, n) {
					return true
				}
			}
			for _, k2 := range v.Keys[:i] {
				if strings.EqualFold(k, k2) {
					return true
				}
			}
			if quirky(&v.Vals[i]) {
				return true
			}
		}
	}
	return false
}

// sameErr fails unless both errors are nil or both wrap the same sentinels.
func sameErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("%s: jsonv %v, encoding/json %v", what, got, want)
	}
	for _, s := range []error{ErrMalformed, ErrSchema, ErrUnsupportedFeature} {
		if errors.Is(got, s) != errors.Is(want, s) {
			t.Fatalf("%s: jsonv %v, encoding/json %v", what, got, want)
		}
	}
}

// FuzzActionsStd: each line read by parseAction and by the encoding/json reader, its actions,
// and the line as a checkpoint row (ActionsFromRows), and as a _last_checkpoint.
func FuzzActionsStd(f *testing.F) {
	seedLogs(f, func(_ string, b []byte) { f.Add(b) })
	for _, s := range []string{
		`{"add":{"path":"a","size":1,"partitionValues":{"p":null,"q":"","r":"x"},"tags":{},"deletionVector":{"storageType":"u","pathOrInlineDv":"x","offset":2147483648,"sizeInBytes":1,"cardinality":1}}}`,
		`{"add":{"path":"a","size":1.0}}`, `{"add":{"path":"a","stats":5}}`, `{"add":null,"remove":{"path":"b","size":null}}`,
		`{"commitInfo":5}`, `{"commitInfo":null}`, `{"commitInfo":{"inCommitTimestamp":1.5}}`, `{"metaData":{"schemaString":"x","format":null,"partitionColumns":[null,"a"]}}`,
		`{"protocol":{"minReaderVersion":1e2}}`, `{"txn":{"appId":"a","version":-1,"lastUpdated":"x"}}`, `{"sidecar":{"path":"s","sizeInBytes":1}}`,
		`{"version":3,"size":4,"parts":2,"v2Checkpoint":{"path":"00000000000000000003.checkpoint.abc.json","sizeInBytes":1}}`,
		`{"version":-1,"parts":null}`, `{"add":{"path":"\ud800a","partitionValues":{"\u00e9":"<&>"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if jsonQuirky(data) {
			return
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			l = bytes.TrimSpace(l)
			if len(l) == 0 || jsonQuirky(l) {
				continue
			}
			a, ok, err := parseAction(l)
			as, oks, errs := parseActionStd(l)
			if (err == nil) != (errs == nil) || ok != oks || !reflect.DeepEqual(a, as) {
				t.Fatalf("%s:\njsonv %v %v %+v\nencoding/json %v %v %+v", l, ok, err, a, oks, errs, as)
			}
			if ok {
				ict, err := inCommitTimestamp("c", []Action{a})
				icts, errs := inCommitTimestampStd("c", []Action{a})
				if ict != icts || (err == nil) != (errs == nil) {
					t.Fatalf("inCommitTimestamp %d %v, encoding/json %d %v", ict, err, icts, errs)
				}
			}
			lc, err := ParseLastCheckpoint(l)
			lcs, errs := ParseLastCheckpointStd(l)
			sameErr(t, "_last_checkpoint", err, errs)
			if err == nil && !reflect.DeepEqual(lc, lcs) {
				t.Fatalf("_last_checkpoint %+v, encoding/json %+v", lc, lcs)
			}
			// The line as a checkpoint row, as a generic decoder gives it.
			var row map[string]any
			if json.Unmarshal(l, &row) == nil {
				row = rowOf(row).(map[string]any)
				r, err := ActionsFromRows("cp", []map[string]any{row})
				rs, errs := ActionsFromRowsStd("cp", []map[string]any{rowOf(row).(map[string]any)})
				sameErr(t, "row", err, errs)
				if !reflect.DeepEqual(r, rs) {
					t.Fatalf("row %v:\njsonv %+v\nencoding/json %+v", row, r, rs)
				}
			}
		}
	})
}

// rowOf turns an encoding/json document into a generic decoder's types: integers as int64,
// other numbers as float64, a string of "b:" as []byte.
func rowOf(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = rowOf(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rowOf(e)
		}
		return out
	case float64:
		if x == float64(int64(x)) && x < 1<<62 && x > -1<<62 {
			return int64(x)
		}
	case string:
		if strings.HasPrefix(x, "b:") {
			return []byte(x[2:])
		}
	}
	return v
}

// FuzzSchemaStd: ParseSchema against the encoding/json reader, and each column mapping mode.
func FuzzSchemaStd(f *testing.F) {
	seedLogs(f, func(_ string, b []byte) {
		acts, _ := ParseCommit("seed", b)
		for _, a := range acts {
			if a.Metadata != nil {
				f.Add(a.Metadata.SchemaString)
			}
		}
	})
	for _, s := range []string{
		mappedSchema,
		`{"type":"struct","fields":[{"name":"a","type":"long","metadata":{"delta.columnMapping.id":5.0,"delta.columnMapping.physicalName":"c"}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":"long","metadata":{"x":1e400}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":"variant"},{"name":"b","type":"long","nullable":"x"}]}`,
		`{"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"integer","containsNull":false},"metadata":{"delta.typeChanges":[{"fromType":"short","toType":"integer","fieldPath":"element"}]}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":"long","metadata":{"delta.typeChanges":"[{\"fromType\":\"integer\",\"toType\":\"long\"}]"}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"string","valueType":null}},{"name":"b"},null]}`,
		`null`, `{"type":"struct","fields":[{"name":"a","type":"decimal(38, 2)","metadata":{"delta.typeChanges":null}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if jsonQuirky([]byte(s)) {
			return
		}
		fs, err := ParseSchema(s)
		fss, errs := ParseSchemaStd(s)
		sameErr(t, "schema", err, errs)
		if err != nil {
			return
		}
		if !reflect.DeepEqual(fs, fss) {
			t.Fatalf("jsonv %+v\nencoding/json %+v", fs, fss)
		}
		for _, mode := range []string{"id", "name", "none"} {
			a, b := cloneFields(fs), cloneFields(fss)
			err, errs := applyColumnMapping(a, mode), applyColumnMapping(b, mode)
			sameErr(t, mode, err, errs)
		}
	})
}

func cloneFields(fs []schema.Field) []schema.Field {
	out := append([]schema.Field(nil), fs...)
	for i := range out {
		out[i].Children = cloneFields(out[i].Children)
	}
	return out
}

// FuzzStatsStd: ParseStats against the encoding/json reader over a schema of every kind.
func FuzzStatsStd(f *testing.F) {
	for _, s := range []string{
		`{"numRecords":3,"minValues":{"i":1,"f":1.1,"d":"2024-01-01","s":"ab","t":"2024-01-01T00:00:00.000Z","n":{"x":5},"dec":1.25},"maxValues":{"i":9,"b":true},"nullCount":{"i":0,"f":3,"n":{"x":1}},"tightBounds":false}`,
		`{"numRecords":"12"}`, `{"numRecords":" 12"}`, `{"numRecords":1e400}`, `{"numRecords":1} trailing`, `null`, ` `, `{"minValues":[]}`,
		`{"minValues":{"i":1.5,"f":1e400,"s":5}}`, `{"numRecords":-1}`, `{"tightBounds":1}`,
	} {
		f.Add(s)
	}
	fields, err := ParseSchema(`{"type":"struct","fields":[{"name":"i","type":"long"},{"name":"f","type":"float"},{"name":"g","type":"double"},
		{"name":"d","type":"date"},{"name":"s","type":"string"},{"name":"t","type":"timestamp"},{"name":"tn","type":"timestamp_ntz"},
		{"name":"b","type":"boolean"},{"name":"dec","type":"decimal(10,2)"},{"name":"n","type":{"type":"struct","fields":[{"name":"x","type":"integer"}]}}]}`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if jsonQuirky([]byte(s)) {
			return
		}
		st, err := ParseStats(s, fields)
		sts, errs := ParseStatsStd(s, fields)
		sameErr(t, "stats", err, errs)
		if err == nil && !reflect.DeepEqual(st, sts) {
			t.Fatalf("jsonv %+v\nencoding/json %+v", st, sts)
		}
	})
}

// FuzzStateStd: EncodeState writes what encoding/json wrote for every state that decodes,
// and both decoders take the same stored states.
func FuzzStateStd(f *testing.F) {
	seedLogs(f, func(_ string, b []byte) {
		acts, _ := ParseCommit("seed", b)
		var s State
		for _, a := range acts {
			switch {
			case a.Protocol != nil:
				s.Protocol = a.Protocol
			case a.Metadata != nil:
				s.Metadata = a.Metadata
			case a.Add != nil:
				s.Files = append(s.Files, StateFile{Add: a.Add})
			}
		}
		s.Anchor = Anchor{Size: 3, ModTime: 4, CRC: 5, HasCRC: true}
		f.Add(EncodeStateStd(&s)[len(stateMagic) : len(EncodeStateStd(&s))-4])
	})
	f.Add([]byte(`{"version":1,"protocol":{"minReaderVersion":1},"metaData":{},"files":[null],"anchor":{"crc":4294967296}}`))
	f.Add([]byte(`{"version":1,"protocol":{},"metaData":{"configuration":{"a":null}},"files":[{"add":{"path":"a","size":-1}}],"anchor":{"crc":-1}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if jsonQuirky(body) {
			return
		}
		b := append([]byte(stateMagic), body...)
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
		s, ss := DecodeState(b), DecodeStateStd(b)
		if !reflect.DeepEqual(s, ss) {
			t.Fatalf("jsonv %+v\nencoding/json %+v", s, ss)
		}
		if s != nil && !bytes.Equal(EncodeState(s), EncodeStateStd(s)) {
			t.Fatalf("encoded:\n%s\n%s", EncodeState(s), EncodeStateStd(s))
		}
		// Every field set, through a state built from the body's JSON if it is one.
		var st State
		if json.Unmarshal(body, &st) == nil && !bytes.Equal(EncodeState(&st), EncodeStateStd(&st)) {
			t.Fatalf("encoded:\n%s\n%s", EncodeState(&st), EncodeStateStd(&st))
		}
	})
}
