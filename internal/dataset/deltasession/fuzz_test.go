package deltasession

import (
	"testing"

	"github.com/pqscan/pqscan/internal/scan"
)

// FuzzSession feeds arbitrary log objects (a _last_checkpoint, commits, a listing) and
// checkpoint bytes to a session: it must end in Done or Error, never panic or loop.
func FuzzSession(f *testing.F) {
	f.Add([]byte(`{"version":0,"size":1}`), []byte(`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}`+"\n"+`{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[]}}`+"\n"+`{"add":{"path":"a.parquet","size":10,"modificationTime":0,"dataChange":true,"partitionValues":{}}}`), false)
	f.Add([]byte(`[{"name":"00000000000000000000.json","size":3},{"name":"00000000000000000001.checkpoint.parquet","size":9}]`), []byte("PAR1\x00\x00\x00\x00PAR1"), true)
	f.Add([]byte(`{"version":1,"size":1,"parts":2}`), []byte("{"), false)
	f.Fuzz(func(t *testing.T, first, rest []byte, list bool) {
		s, err := New(Options{CanList: list, MemoryCap: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		pushed := 0
		for i := 0; i < 200; i++ {
			st := s.Next()
			switch st.Kind {
			case scan.Done, scan.Error:
				return
			case scan.NeedObjects:
				for _, o := range s.Objects() {
					b, found := rest, pushed < 4
					if pushed == 0 {
						b = first
					}
					pushed++
					if s.PushObject(o.Path, b, found) != nil {
						return
					}
				}
			case scan.NeedData:
				for _, r := range st.Reqs {
					off := r.Off
					if off < 0 {
						if s.SetFileSizeOf(r.File, int64(len(rest))) != nil {
							return
						}
						off = max(int64(len(rest))+off, 0)
					}
					if off > int64(len(rest)) {
						off = int64(len(rest))
					}
					if s.PushFile(r.File, off, rest[off:]) != nil {
						return
					}
				}
			default:
				t.Fatalf("step %v", st.Kind)
			}
		}
		t.Fatal("no end after 200 steps")
	})
}
