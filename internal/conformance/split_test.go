package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/splitscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// splitAll scans data with threads and returns the IPC batches and the report.
func splitAll(ctx context.Context, data []byte, threads int, so pqscan.ScanOptions, tighten string) ([][]byte, pqscan.Report, error) {
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), pqscan.Options{Threads: threads})
	if err != nil {
		return nil, pqscan.Report{}, err
	}
	defer f.Close()
	r, err := f.Scan(ctx, so)
	if err != nil {
		return nil, pqscan.Report{}, err
	}
	defer r.Close()
	if tighten != "" {
		if err := r.Tighten(tighten); err != nil {
			return nil, pqscan.Report{}, err
		}
	}
	return drainIPC(r)
}

// drainIPC reads a scan to its end: its IPC batches and its report (nil batches on an error).
func drainIPC(r *pqscan.Reader) ([][]byte, pqscan.Report, error) {
	var out [][]byte
	for {
		b, err := r.NextIPC()
		if err == io.EOF {
			return out, r.Report(), nil
		}
		if err != nil {
			return nil, r.Report(), err
		}
		out = append(out, bytes.Clone(b))
	}
}

// sameBatchRows compares two scans' batches as tables: the same columns, the same rows in the same
// order, whatever the batch boundaries.
func sameBatchRows(a, b [][]byte) error {
	ta, err := ipcTable(a)
	if err != nil {
		return err
	}
	defer ta.Release()
	tb, err := ipcTable(b)
	if err != nil {
		return err
	}
	defer tb.Release()
	if !ta.Schema().Equal(tb.Schema()) {
		return fmt.Errorf("schema %v, want %v", tb.Schema(), ta.Schema())
	}
	if ta.NumRows() != tb.NumRows() {
		return fmt.Errorf("%d rows, want %d", tb.NumRows(), ta.NumRows())
	}
	ca, err := oneBatch(ta)
	if err != nil {
		return err
	}
	cb, err := oneBatch(tb)
	if err != nil {
		return err
	}
	if !bytes.Equal(ca, cb) {
		return errors.New("rows differ")
	}
	return nil
}

// oneBatch writes a table as one IPC record batch, so two tables with the same rows in other
// batches compare byte for byte (NaN payloads included).
func oneBatch(tb arrow.Table) ([]byte, error) {
	cols := make([]arrow.Array, tb.NumCols())
	for i := range cols {
		a, err := array.Concatenate(tb.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		cols[i] = a
	}
	rec := array.NewRecordBatch(tb.Schema(), cols, tb.NumRows())
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(tb.Schema()))
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func ipcTable(bs [][]byte) (arrow.Table, error) {
	var recs []arrow.RecordBatch
	var schema *arrow.Schema
	for _, b := range bs {
		rec, err := decodeBatch(b, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		defer rec.Release()
		schema = rec.Schema()
		recs = append(recs, rec)
	}
	if schema == nil {
		return nil, errors.New("no batch")
	}
	return array.NewTableFromRecords(schema, recs), nil
}

// decodeBatch reads the one record batch of an engine IPC stream, as pqscan.Reader.Next does.
func decodeBatch(b []byte, alloc memory.Allocator) (arrow.RecordBatch, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(alloc))
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	if !rdr.Next() {
		if err := rdr.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("engine IPC stream without a record batch")
	}
	rec := rdr.RecordBatch()
	rec.Retain()
	return rec, nil
}

// withUnitMinBytes lowers the unit size for a test so small files split too.
func withUnitMinBytes(t *testing.T, n int64) {
	old := splitscan.UnitMinBytes
	splitscan.UnitMinBytes = n
	t.Cleanup(func() { splitscan.UnitMinBytes = old })
}

// Every valid corpus file scanned on three threads, with units as small as the pages allow,
// returns what one session returns: the same rows in the same order (byte for byte per batch
// when no row group was cut), with row index, slices and runtime filters.
func TestSplitCorpus(t *testing.T) {
	withUnitMinBytes(t, 1)
	variants := []struct {
		name    string
		so      pqscan.ScanOptions
		tighten string
	}{
		{name: "all"},
		{name: "row index", so: pqscan.ScanOptions{RowIndex: "__ri", BatchRows: 100}},
		{name: "offset limit", so: pqscan.ScanOptions{Offset: 3, Limit: 17, BatchRows: 7}},
		{name: "row index where", so: pqscan.ScanOptions{RowIndex: "__ri", Where: "__ri % 3 = 1 OR __ri > 50"}},
		{name: "nothing matches", so: pqscan.ScanOptions{RowIndex: "__ri", Where: "__ri < 0"}},
		{name: "runtime filter", so: pqscan.ScanOptions{RowIndex: "__ri"}, tighten: "__ri >= 5 AND __ri < 400"},
		{name: "runtime filter in a slice", so: pqscan.ScanOptions{RowIndex: "__ri", Offset: 2, Limit: 300}, tighten: "__ri NOT BETWEEN 10 AND 20"},
	}
	var split, cut, n int
	for _, p := range differentialFiles(t) {
		if _, bad := mustFailInData[p]; bad {
			continue
		}
		data := testcorpus.Read(t, p)
		for _, v := range variants {
			ctx := context.Background()
			want, _, werr := splitAll(ctx, data, 1, v.so, v.tighten)
			got, rep, gerr := splitAll(ctx, data, 3, v.so, v.tighten)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%s %s: error %v, one session %v", p, v.name, gerr, werr)
				continue
			}
			if werr != nil {
				continue
			}
			n++
			if rep.Units > 1 {
				split++
			}
			if err := sameBatchRows(want, got); err != nil {
				t.Errorf("%s %s (%d units): %v", p, v.name, rep.Units, err)
				continue
			}
			if rep.Units > rep.RowGroupsAfterStats {
				cut++
				continue
			}
			if len(got) != len(want) {
				t.Errorf("%s %s: %d batches, want %d", p, v.name, len(got), len(want))
				continue
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("%s %s: batch %d differs", p, v.name, i)
					break
				}
			}
		}
	}
	t.Logf("%d scans, %d split into units, %d with a row group cut", n, split, cut)
	if split == 0 || cut == 0 {
		t.Errorf("no scan split (%d) or cut a row group (%d)", split, cut)
	}
}

// A runtime filter given mid-scan reaches the units: the rows returned are the unfiltered
// scan's rows in order, every row the filter keeps among them, and the rows it drops only
// where they were read before it (the round in flight, as for one session).
func TestSplitTightenMidScan(t *testing.T) {
	withUnitMinBytes(t, 1)
	data := manyRowGroups(t, 40, 100)
	ctx := context.Background()
	so := pqscan.ScanOptions{RowIndex: "__ri", BatchRows: 50}
	all := rowIndexes(t, data, so, "")
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), pqscan.Options{Threads: 2})
	require.NoError(t, err)
	r, err := f.Scan(ctx, so)
	require.NoError(t, err)
	defer r.Close()
	var got []int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if got == nil {
			require.NoError(t, r.Tighten("__ri < 1000"))
		}
		got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
		rec.Release()
	}
	rep := r.Report()
	require.True(t, rep.Units > 1, "units", rep.Units)
	at := 0
	dropped := 0
	for _, v := range all {
		if at < len(got) && got[at] == v {
			at++
			continue
		}
		require.True(t, v >= 1000, "row %d kept by the filter is missing", v)
		dropped++
	}
	require.Equal(t, len(got), at, "rows out of order or not in the scan")
	require.True(t, dropped > 0, "the filter dropped nothing", rep.Units)
	t.Logf("%d units, %d rows, %d dropped by the runtime filter", rep.Units, len(got), dropped)
}

// rowIndexes scans data on one session and returns the row index column.
func rowIndexes(t *testing.T, data []byte, so pqscan.ScanOptions, where string) []int64 {
	so.Where = where
	res, err := scanBytes(data, pqscan.Options{Threads: 1}, so, corpusTimeout)
	require.NoError(t, err)
	var out []int64
	for _, rec := range res.recs {
		out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

// manyRowGroups writes n row groups of rows rows of one int64 column.
func manyRowGroups(t *testing.T, n, rows int) []byte {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n * rows {
		b.Append(int64(i) * 3)
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n*rows))
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rows)), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}
