package conformance

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/pqout"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_parquetOutputCorpus: every corpus file pqscan reads, scanned whole, written as Parquet
// by internal/pqout (`pqscan cat --format parquet`) in small row groups, reads back through
// pqscan as the same rows (canonical JSON per row: every type the corpus's writers produce,
// nested ones included), or is refused with pqout.ErrType before a byte is written for a type
// the output cannot hold. Test_parquetOutputOracles adds arrow-go and DuckDB as readers on a
// few sources.
func Test_parquetOutputCorpus(t *testing.T) {
	ctx := context.Background()
	dir := testcorpus.Dir(t)
	files, refused := 0, 0
	for _, p := range testcorpus.Files(t, ".parquet") {
		if !whereCorpusFile(p) {
			continue
		}
		f, err := pqscan.Open(ctx, filepath.Join(dir, p), pqscan.Options{})
		if err != nil {
			continue
		}
		n := f.Metadata().NumRows
		if n == 0 || n > 200_000 {
			f.Close()
			continue
		}
		r, err := f.Scan(ctx, pqscan.ScanOptions{})
		if err != nil {
			f.Close()
			continue
		}
		all, err := collect(r)
		f.Close()
		if err != nil {
			continue
		}
		var buf bytes.Buffer
		w, err := pqout.New(&buf, all.schema, pqout.Options{RowGroupRows: 1 + n/3})
		if errors.Is(err, pqout.ErrType) {
			refused++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, rec := range all.recs {
			if err := w.Write(rec); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		g, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()), pqscan.Options{})
		if err != nil {
			t.Errorf("%s: the extract does not open: %v", p, err)
			continue
		}
		r, err = g.Scan(ctx, pqscan.ScanOptions{})
		if err != nil {
			t.Errorf("%s: the extract does not scan: %v", p, err)
			g.Close()
			continue
		}
		back, err := collect(r)
		g.Close()
		if err != nil {
			t.Errorf("%s: the extract does not read: %v", p, err)
			continue
		}
		if back.rows != all.rows {
			t.Errorf("%s: %d rows back, %d written", p, back.rows, all.rows)
			continue
		}
		for i := range all.rows {
			if a, b := canonRow(all, i), canonRow(back, i); a != b {
				t.Errorf("%s: row %d reads back as\n%s\nnot\n%s", p, i, b, a)
				break
			}
		}
		files++
	}
	t.Logf("%d corpus files written and read back; %d refused as types the output cannot hold", files, refused)
	if files < 200 {
		t.Fatalf("only %d files", files)
	}
}
