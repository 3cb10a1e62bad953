package delta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
)

// seedLogs adds every JSON log file (commits, V2 checkpoints, _last_checkpoint) of the shared
// Delta testdata to a fuzz corpus.
func seedLogs(f *testing.F, add func(name string, b []byte)) {
	_ = filepath.WalkDir(testdataDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(p, "_delta_log") {
			return nil
		}
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, "_last_checkpoint") {
			if b, err := os.ReadFile(p); err == nil {
				add(filepath.Base(p), b)
			}
		}
		return nil
	})
}

func marshalAction(a Action) []byte {
	b, err := json.Marshal(actionJSONStd{Add: a.Add, Remove: a.Remove, Metadata: a.Metadata, Protocol: a.Protocol, CommitInfo: a.CommitInfo,
		Txn: a.Txn, DomainMetadata: a.DomainMetadata, CDC: a.CDC, CheckpointMetadata: a.CheckpointMetadata, Sidecar: a.Sidecar})
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzParseCommit: no panic; every accepted action is exactly one action; writing the actions
// back as JSON lines and parsing again is a fixed point (the parser loses nothing it keeps).
func FuzzParseCommit(f *testing.F) {
	seedLogs(f, func(_ string, b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, data []byte) {
		acts, err := ParseCommit("fuzz.json", data)
		if err != nil {
			return
		}
		var lines [][]byte
		for _, a := range acts {
			lines = append(lines, marshalAction(a))
		}
		again, err := ParseCommit("again.json", bytes.Join(lines, []byte("\n")))
		if err != nil || len(again) != len(acts) {
			t.Fatalf("re-parse: %v (%d vs %d actions)", err, len(again), len(acts))
		}
		for i := range again {
			if !bytes.Equal(marshalAction(again[i]), lines[i]) {
				t.Fatalf("action %d not a fixed point:\n%s\n%s", i, lines[i], marshalAction(again[i]))
			}
		}
	})
}

// FuzzReplay splits the input into commits at "\n\n" and replays them: no panic, and a
// snapshot, when built, only holds files that some commit added.
func FuzzReplay(f *testing.F) {
	var all [][]byte
	seedLogs(f, func(name string, b []byte) {
		if strings.HasPrefix(name, "00000000000000000000.json") {
			all = append(all, b)
		}
	})
	for _, b := range all {
		f.Add(b)
	}
	f.Add([]byte(lineProtocol + "\n" + lineMetadata + "\n\n" + addLine("p=2024-01-01/a.parquet", `"2024-01-01"`) + "\n\n" + `{"remove":{"path":"p=2024-01-01/a.parquet"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReplay()
		added := map[string]bool{}
		for v, c := range bytes.Split(data, []byte("\n\n")) {
			acts, err := ParseCommit("c.json", c)
			if err != nil {
				return
			}
			for _, a := range acts {
				if a.Add != nil {
					added[a.Add.Path] = true                   // absolute paths stay raw
					added[pathenc.Unescape(a.Add.Path)] = true // relative ones are decoded
				}
			}
			if err := r.Commit(int64(v), acts); err != nil {
				t.Fatalf("contiguous commit refused: %v", err)
			}
		}
		s, err := r.Snapshot()
		if err != nil {
			return
		}
		for _, file := range s.Files {
			if !added[file.Path] {
				t.Fatalf("snapshot file %q was never added", file.Path)
			}
			if len(file.Partition) != len(s.PartitionColumns) {
				t.Fatalf("file %q has %d partition values for %d columns", file.Path, len(file.Partition), len(s.PartitionColumns))
			}
		}
	})
}

// FuzzParseSchema: no panic, and a parsed schema's partition-free data schema is stable.
func FuzzParseSchema(f *testing.F) {
	seedLogs(f, func(_ string, b []byte) {
		acts, err := ParseCommit("seed", b)
		if err != nil {
			return
		}
		for _, a := range acts {
			if a.Metadata != nil {
				f.Add(a.Metadata.SchemaString)
			}
		}
	})
	f.Add(mappedSchema)
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseSchema(s)
		if err != nil {
			return
		}
		for _, fl := range fields {
			if fl.Name == "" {
				t.Fatal("field without a name accepted")
			}
		}
		for _, mode := range []string{"id", "name", "none"} {
			if applyColumnMapping(fields, mode) == nil && mode != "id" && len(fields) > 0 && fields[0].FieldID != 0 {
				t.Fatalf("mode %s kept a field id", mode)
			}
		}
	})
}

// FuzzParseStats: no panic against the seeds' schemas; every parsed column has consistent
// counts (NullCount within NumValues when both are known).
func FuzzParseStats(f *testing.F) {
	type seed struct{ schema, stats string }
	var seeds []seed
	seedLogs(f, func(_ string, b []byte) {
		acts, err := ParseCommit("seed", b)
		if err != nil {
			return
		}
		schemaString := ""
		for _, a := range acts {
			if a.Metadata != nil {
				schemaString = a.Metadata.SchemaString
			}
			if a.Add != nil && a.Add.Stats != nil && schemaString != "" {
				seeds = append(seeds, seed{schemaString, *a.Add.Stats})
			}
		}
	})
	for _, s := range seeds {
		f.Add(s.schema, s.stats)
	}
	f.Fuzz(func(t *testing.T, schemaString, stats string) {
		fields, err := ParseSchema(schemaString)
		if err != nil {
			return
		}
		st, err := ParseStats(stats, fields)
		if err != nil {
			return
		}
		for p, c := range st.cols {
			if c.NullCount >= 0 && c.NumValues >= 0 && st.TightBounds && c.NullCount > c.NumValues {
				// Writers can be wrong; the evaluator must survive it, so only log.
				t.Logf("column %s: nullCount %d > numRecords %d", p, c.NullCount, c.NumValues)
			}
		}
	})
}

// FuzzParseLogName: no panic; accepted commit names round-trip through CommitName.
func FuzzParseLogName(f *testing.F) {
	seedLogs(f, func(name string, _ []byte) { f.Add(name) })
	f.Add("00000000000000000010.checkpoint.0000000001.0000000003.parquet")
	f.Fuzz(func(t *testing.T, name string) {
		lf, ok := ParseLogName(name)
		if ok && lf.Kind == KindCommit && CommitName(lf.Version) != lf.Name {
			t.Fatalf("%q parsed as version %d", name, lf.Version)
		}
		if ok && lf.Kind == KindCheckpointPart && (lf.Part < 1 || lf.Part > lf.Parts) {
			t.Fatalf("%q: part %d of %d", name, lf.Part, lf.Parts)
		}
	})
}

// FuzzDecodeState: a stored state that is not one EncodeState wrote (garbage, truncated, of
// another format, or its body altered under a valid checksum: fixCRC) is an error, never a
// panic; what decodes is a fixed point of encoding, and a replay can start from it.
func FuzzDecodeState(f *testing.F) {
	for _, table := range []string{"delta-rs/simple_table", "delta-rs/table-with-dv-small", "dat/multi_partitioned/delta"} {
		names, _ := filepath.Glob(filepath.Join(testdataDir, table, "_delta_log", "0*.json"))
		r := NewReplay()
		for i, n := range names {
			b, _ := os.ReadFile(n)
			acts, err := ParseCommit(n, b)
			if err != nil || r.Commit(int64(i), acts) != nil {
				f.Fatalf("%s: %v", n, err)
			}
		}
		if _, err := r.Snapshot(); err != nil {
			f.Fatal(err)
		}
		st := r.state()
		st.Anchor = Anchor{Size: 10, CRC: 7, HasCRC: true}
		b := EncodeState(st)
		f.Add(b, false)
		f.Add(b[:len(b)-4], true)
	}
	f.Fuzz(func(t *testing.T, b []byte, fixCRC bool) {
		if fixCRC {
			b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
		}
		s := DecodeState(b)
		if s == nil {
			return
		}
		again := DecodeState(EncodeState(s))
		if again == nil {
			t.Fatal("re-encoded state does not decode")
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("not a fixed point:\n%+v\n%+v", s, again)
		}
		r := replayFrom(s)
		_ = r.Commit(s.Version+1, nil)
		if snap, err := r.Snapshot(); err == nil && snap.Version != s.Version+1 {
			t.Fatalf("version %d after state %d", snap.Version, s.Version)
		}
	})
}
