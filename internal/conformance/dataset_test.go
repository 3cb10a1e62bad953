package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
)

// dayFile is one file of the test dataset: its partition directory, rows and schema variant.
type dayFile struct {
	dir     string // e.g. "event_date=2024-01-01"
	first   int64  // first id
	rows    int
	idInt32 bool // id written as int32 (the table's is int64: widened)
	noName  bool // the name column is missing (reads as null)
	extra   bool // an extra column the table does not have (ignored)
}

// writeDay writes a file with arrow-go: id, value, name (unless noName), small row groups.
func writeDay(t *testing.T, root string, d dayFile, part int) string {
	t.Helper()
	var fields []arrow.Field
	if d.idInt32 {
		fields = append(fields, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int32})
	} else {
		fields = append(fields, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64})
	}
	fields = append(fields, arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	if !d.noName {
		fields = append(fields, arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true})
	}
	if d.extra {
		fields = append(fields, arrow.Field{Name: "extra", Type: arrow.PrimitiveTypes.Int64})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < d.rows; i++ {
		id := d.first + int64(i)
		if d.idInt32 {
			b.Field(0).(*array.Int32Builder).Append(int32(id))
		} else {
			b.Field(0).(*array.Int64Builder).Append(id)
		}
		b.Field(1).(*array.Float64Builder).Append(float64(id) / 4)
		k := 2
		if !d.noName {
			b.Field(k).(*array.StringBuilder).Append(fmt.Sprintf("n%d", id%7))
			k++
		}
		if d.extra {
			b.Field(k).(*array.Int64Builder).Append(-id)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := filepath.Join(root, d.dir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, fmt.Sprintf("part-%d.parquet", part))
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// oracleRows reads a file with arrow-go (the independent reader) as "id|value|name|date" lines.
func oracleRows(t *testing.T, p, date string) []string {
	t.Helper()
	rdr, err := file.OpenParquetFile(p, false)
	require.NoError(t, err)
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	var out []string
	for tr.Next() {
		out = append(out, recordLines(tr.RecordBatch(), date)...)
	}
	return out
}

// recordLines renders id, value, name (null if absent) and the partition date of each row.
func recordLines(rec arrow.RecordBatch, date string) []string {
	col := func(name string) arrow.Array {
		if idx := rec.Schema().FieldIndices(name); len(idx) == 1 {
			return rec.Column(idx[0])
		}
		return nil
	}
	id, value, name, part := col("id"), col("value"), col("name"), col("event_date")
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		n := "(null)"
		if name != nil && !name.IsNull(i) {
			n = name.ValueStr(i)
		}
		d := date
		if part != nil {
			d = part.ValueStr(i)
		}
		v := "-"
		if value != nil {
			v = value.ValueStr(i)
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", id.ValueStr(i), v, n, d))
	}
	return out
}

// readAll reads a scan to the end as recordLines.
func readAll(t *testing.T, r *pqscan.Reader) []string {
	t.Helper()
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, recordLines(rec, "")...)
		rec.Release()
	}
}

func buildDataset(t *testing.T, days []dayFile) (root string, paths []string, want [][]string) {
	root = t.TempDir()
	for i, d := range days {
		p := writeDay(t, root, d, i)
		paths = append(paths, p)
		want = append(want, oracleRows(t, p, strings.TrimPrefix(d.dir, "event_date=")))
	}
	return root, paths, want
}

// Test_datasetHive: a folder of day partitions read as one table, by folder, glob and explicit
// list: the rows are arrow-go's rows of each file in order, with the partition column; an
// added column is ignored, a missing one is null, int32 is widened to the table's int64.
func Test_datasetHive(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 250},
		{dir: "event_date=2024-01-02", first: 1000, rows: 120, extra: true},
		{dir: "event_date=2024-01-03", first: 2000, rows: 90, noName: true},
		{dir: "event_date=2024-01-04", first: 3000, rows: 130, idInt32: true},
	}
	root, paths, want := buildDataset(t, days)
	var all []string
	for _, w := range want {
		for _, line := range w {
			// arrow-go has no name column for the file without one: the table's is null.
			all = append(all, line)
		}
	}
	ctx := context.Background()
	for _, srcs := range [][]string{{root + "/"}, {root + "/*/*.parquet"}, {root + "/**"}, paths} {
		t.Run(strings.Join(srcs, ","), func(t *testing.T) {
			ds, err := pqscan.OpenDataset(ctx, srcs, pqscan.Options{})
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, paths, ds.Files())
			require.Equal(t, "event_date", ds.Schema().Field(ds.Schema().NumFields()-1).Name)
			r, err := ds.Scan(ctx, pqscan.ScanOptions{})
			require.NoError(t, err)
			got := readAll(t, r)
			require.Equal(t, all, got)
			rep := r.Report()
			require.Equal(t, 4, rep.FilesTotal)
			require.Equal(t, 4, rep.FilesRead)
		})
	}

	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	tests := []struct {
		name      string
		so        pqscan.ScanOptions
		want      func() []string
		filesRead int
	}{
		{name: "partition predicate decides files before their footers",
			so:   pqscan.ScanOptions{Where: "event_date = DATE '2024-01-02'"},
			want: func() []string { return want[1] }, filesRead: 1},
		{name: "a condition mixing partition and file columns: each file's partition value in it",
			so: pqscan.ScanOptions{Where: "event_date = DATE '2024-01-03' OR id >= 3100"},
			want: func() []string {
				return append(append([]string(nil), want[2]...), want[3][100:]...)
			}},
		{name: "file predicate over widened and missing-name files",
			so: pqscan.ScanOptions{Where: "id >= 2050 AND id < 3010"},
			want: func() []string {
				return append(append([]string(nil), want[2][50:]...), want[3][:10]...)
			}, filesRead: 4},
		{name: "limit stops in the first file",
			so:   pqscan.ScanOptions{Limit: 5},
			want: func() []string { return want[0][:5] }, filesRead: 1},
		{name: "offset and limit across files",
			so:   pqscan.ScanOptions{Offset: 240, Limit: 20},
			want: func() []string { return append(append([]string(nil), want[0][240:]...), want[1][:10]...) }, filesRead: 2},
		{name: "filtered limit across files",
			so:   pqscan.ScanOptions{Where: "id IN (7, 107, 207, 1007, 1107)", Limit: 4},
			want: func() []string { return []string{want[0][7], want[0][107], want[0][207], want[1][7]} }, filesRead: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ds.Scan(ctx, tc.so)
			if tc.want() == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			got := readAll(t, r)
			require.Equal(t, tc.want(), got)
			if tc.filesRead > 0 {
				require.Equal(t, tc.filesRead, r.Report().FilesRead)
			}
		})
	}
}

// Test_datasetRounds: the footers of every file cost one round of requests, so a scan of four
// files takes about as many round trips as a scan of one; files decided by
// their partition values or after the limit are never read.
func Test_datasetRounds(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 400},
		{dir: "event_date=2024-01-02", first: 1000, rows: 400},
		{dir: "event_date=2024-01-03", first: 2000, rows: 400},
		{dir: "event_date=2024-01-04", first: 3000, rows: 400},
	}
	root, paths, _ := buildDataset(t, days)
	ctx := context.Background()
	// A tail too small for the data: every file needs its footer round and data rounds.
	opts := pqscan.Options{TailSize: 512}
	so := pqscan.ScanOptions{Where: "value >= 0", Columns: []string{"id", "name"}}
	// The same query over one file (a dataset of one, so both sides count the same rounds).
	single := 0
	for _, p := range paths {
		ds, err := pqscan.OpenDataset(ctx, []string{p}, opts)
		require.NoError(t, err)
		r, err := ds.Scan(ctx, so)
		require.NoError(t, err)
		require.Equal(t, 400, len(readAll(t, r)))
		single = max(single, r.Report().RoundTrips)
		ds.Close()
	}
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, opts)
	require.NoError(t, err)
	defer ds.Close()
	r, err := ds.Scan(ctx, so)
	require.NoError(t, err)
	require.Equal(t, 1600, len(readAll(t, r)))
	rep := r.Report()
	t.Logf("one file: %d round trips; four files: %d", single, rep.RoundTrips)
	require.True(t, rep.RoundTrips <= single+2, "round trips", rep.RoundTrips, "single file", single)

	r, err = ds.Scan(ctx, pqscan.ScanOptions{Where: "event_date BETWEEN DATE '2024-01-02' AND DATE '2024-01-03'"})
	require.NoError(t, err)
	require.Equal(t, 800, len(readAll(t, r)))
	rep = r.Report()
	require.Equal(t, 2, rep.FilesAfterPartitions)
	for _, i := range []int{0, 3} {
		require.Equal(t, "partition", rep.Files[i].SkippedBy)
		require.Equal(t, int64(0), rep.Files[i].BytesRequested)
	}

	r, err = ds.Scan(ctx, pqscan.ScanOptions{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 10, len(readAll(t, r)))
	rep = r.Report()
	require.Equal(t, 1, rep.FilesRead)
	for _, fr := range rep.Files[1:] {
		require.Equal(t, int64(0), fr.BytesRequested)
	}
}

// Test_datasetSchemaErrors: a column whose type the table cannot hold is an error naming the
// file and the column, never rows; a predicate on a column a file lacks sees its nulls.
func Test_datasetSchemaErrors(t *testing.T) {
	root := t.TempDir()
	writeDay(t, root, dayFile{dir: "d=1", rows: 10}, 0)
	writeDay(t, root, dayFile{dir: "d=2", first: 100, rows: 10, noName: true}, 1)
	// A third file whose "value" is a string: incompatible with the table's double.
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "value", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.Int64Builder).Append(1)
	b.Field(1).(*array.StringBuilder).Append("x")
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d=3"), 0o755))
	bad := filepath.Join(root, "d=3", "part-2.parquet")
	require.NoError(t, os.WriteFile(bad, buf.Bytes(), 0o644))

	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	_, err = scanErr(ctx, ds, pqscan.ScanOptions{})
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), bad) && strings.Contains(err.Error(), `"value"`), err)

	// A predicate on a column a file lacks is evaluated on its nulls: no row of that file.
	rows, err := scanErr(ctx, ds, pqscan.ScanOptions{Where: "name = 'n1' AND d <= 2"})
	require.NoError(t, err)
	require.Equal(t, 2, rows) // ids 1 and 8
	// The same predicate where the file without the column is decided by its partition value.
	rows, err = scanErr(ctx, ds, pqscan.ScanOptions{Where: "name = 'n1' AND d = 1"})
	require.NoError(t, err)
	require.Equal(t, 2, rows)
}

func scanErr(ctx context.Context, ds *pqscan.Dataset, so pqscan.ScanOptions) (int, error) {
	r, err := ds.Scan(ctx, so)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int(rec.NumRows())
		rec.Release()
	}
}

// Test_datasetS3Listing: a folder and a glob over an http server that answers S3
// ListObjectsV2 (virtual-hosted and path style, two keys a page so the listing paginates) read
// as the same table as the local folder; each file costs its range requests only (the listing
// gives sizes: no probe); listing faults are clear errors.
func Test_datasetS3Listing(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 50},
		{dir: "event_date=2024-01-02", first: 100, rows: 60},
		{dir: "event_date=2024-01-03", first: 200, rows: 70},
	}
	root, paths, _ := buildDataset(t, days)
	ctx := context.Background()
	local, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	r, err := local.Scan(ctx, pqscan.ScanOptions{})
	require.NoError(t, err)
	want := readAll(t, r)
	local.Close()

	srv := faultserver.New(faultserver.Options{ListPageSize: 2})
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		srv.Add("events/"+filepath.ToSlash(rel), b)
		srv.Add("bkt/events/"+filepath.ToSlash(rel), b)
	}
	srv.Add("events/_SUCCESS", nil)
	srv.Add("events/event_date=2024-01-01/.part-0.parquet.crc", []byte("x"))
	srv.Add("other/x.parquet", []byte("not parquet"))
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()

	for _, tc := range []struct {
		name string
		src  string
		opts pqscan.Options
	}{
		{name: "folder", src: base + "/events/"},
		{name: "glob", src: base + "/events/*/part-*.parquet"},
		{name: "path style", src: base + "/bkt/events/", opts: pqscan.Options{PathStyleListing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			ds, err := pqscan.OpenDataset(ctx, []string{tc.src}, tc.opts)
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, 3, len(ds.Files()))
			r, err := ds.Scan(ctx, pqscan.ScanOptions{})
			require.NoError(t, err)
			require.Equal(t, want, readAll(t, r))
			for path, st := range srv.Stats() {
				if strings.HasSuffix(path, ".parquet") {
					// The open read the first file's tail; the scan every file's, from the
					// cache for the first: one range request each, no probe.
					require.True(t, st.Requests == 1, path, "requests", st.Requests)
				}
			}
		})
	}
	// Opening the same dataset again costs no footer request: the listing's ETags key the
	// footer cache (and hold each file to that version), and these files fit in their tails.
	again := faultserver.New(faultserver.Options{})
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		again.Add("events/"+filepath.ToSlash(rel), must(os.ReadFile(p)))
	}
	ab, err := again.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer again.Close()
	for i, wantReqs := range []int64{3, 0} {
		ds, err := pqscan.OpenDataset(ctx, []string{ab + "/events/"}, pqscan.Options{})
		require.NoError(t, err)
		r, err := ds.Scan(ctx, pqscan.ScanOptions{})
		require.NoError(t, err)
		require.Equal(t, want, readAll(t, r))
		ds.Close()
		n := int64(0)
		for path, st := range again.Stats() {
			if strings.HasSuffix(path, ".parquet") {
				n += st.Requests
			}
		}
		again.Reset()
		require.Equal(t, wantReqs, n, "file requests of open", i+1)
	}
	// A file that changes after the listing (another ETag) fails the scan, naming it: with a
	// 1 KiB tail its data is read after the change, and If-Match refuses the new version.
	changed := faultserver.New(faultserver.Options{})
	changed.Add("events/a=1/f.parquet", must(os.ReadFile(paths[0])))
	cb, err := changed.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer changed.Close()
	ds, err := pqscan.OpenDataset(ctx, []string{cb + "/events/"}, pqscan.Options{TailSize: 1024})
	require.NoError(t, err)
	changed.Add("events/a=1/f.parquet", must(os.ReadFile(paths[1])))
	_, err = scanErr(ctx, ds, pqscan.ScanOptions{})
	ds.Close()
	require.True(t, errors.Is(err, pqscan.ErrFileChanged) && strings.Contains(err.Error(), "f.parquet"), err)
	for _, tc := range []struct{ name, fault, src, err string }{
		{name: "service error", fault: faultserver.ModeListError, err: "HTTP 503"},
		{name: "truncated page without a token", fault: faultserver.ModeListTruncated, err: "truncated"},
		{name: "a token that repeats", fault: faultserver.ModeListLoop, err: "token"},
		{name: "nothing listed", src: "/nothing/", err: "no Parquet file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := faultserver.New(faultserver.Options{ListPageSize: 2, ListFault: tc.fault})
			fs.Add("events/a=1/f.parquet", []byte("PAR1"))
			fs.Add("events/a=2/f.parquet", []byte("PAR1"))
			fs.Add("events/a=3/f.parquet", []byte("PAR1"))
			fb, err := fs.Start("127.0.0.1:0")
			require.NoError(t, err)
			defer fs.Close()
			src := tc.src
			if src == "" {
				src = "/events/"
			}
			_, err = pqscan.OpenDataset(ctx, []string{fb + src}, pqscan.Options{})
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), tc.err), err)
		})
	}
	// A listed file that is gone when read: the error names it.
	_, err = pqscan.OpenDataset(ctx, []string{base + "/events/event_date=2024-01-01/part-0.parquet", base + "/events/gone.parquet"}, pqscan.Options{})
	if err == nil {
		ds, _ := pqscan.OpenDataset(ctx, []string{base + "/events/event_date=2024-01-01/part-0.parquet", base + "/events/gone.parquet"}, pqscan.Options{})
		_, err = scanErr(ctx, ds, pqscan.ScanOptions{})
		ds.Close()
	}
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "gone.parquet"), err)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Test_datasetReportTotals: a table's totals count each file once (its footer round and its
// data scan both read the footer: the footer's counts are not added twice).
func Test_datasetReportTotals(t *testing.T) {
	days := []dayFile{{dir: "d=1", rows: 250}, {dir: "d=2", first: 1000, rows: 120}}
	root, _, _ := buildDataset(t, days)
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	r, err := ds.Scan(ctx, pqscan.ScanOptions{})
	require.NoError(t, err)
	readAll(t, r)
	rep := r.Report()
	require.Equal(t, int64(370), rep.RowsTotal)
	require.Equal(t, 5, rep.RowGroupsTotal) // 100-row groups: 3 + 2
	require.Equal(t, int64(370), rep.RowsReturned)
	// Each file's line carries its row groups (for a host's picture of files, then row groups).
	require.Equal(t, 2, len(rep.Files))
	require.Equal(t, 3, len(rep.Files[0].RowGroups))
	require.Equal(t, 2, len(rep.Files[1].RowGroups))
	require.Equal(t, int64(50), rep.Files[0].RowGroups[2].Rows)
}
