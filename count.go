package pqscan

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Count answers SELECT count(*) FROM f WHERE o.Where (Offset and Limit apply to the rows
// counted; Columns are ignored) with the engine's count mode (ScanOptions.Count): row groups
// and pages whose statistics prove that every row matches are counted from their row counts,
// those that prove none are skipped, and only the others read the predicate columns. Without
// a predicate it reads the footer alone. Report.RowsCountedFromMetadata says how many rows
// needed no data. The report is returned with an error too, as far as the scan got.
func (f *File) Count(ctx context.Context, o ScanOptions) (int64, Report, error) {
	o.Count, o.Columns = true, nil
	return countOf(f.Scan(ctx, o))
}

// Count answers SELECT count(*) over the table WHERE o.Where (Offset and Limit apply to the
// rows counted; Columns are ignored): the sum of the files' counts. Files whose partition
// values or Delta statistics rule them out count 0 and fetch nothing; a file whose partition
// values and statistics prove every row matches is counted from its footer's num_rows
// (fetched in the one footer round); every other file counts as File.Count does. The files
// run together (the footers in one round, then the index and data rounds of all at once),
// so a count over 120 files costs about the round trips of one.
func (d *Dataset) Count(ctx context.Context, o ScanOptions) (int64, Report, error) {
	o.Count, o.Columns = true, nil
	return countOf(d.Scan(ctx, o))
}

// countOf reads a count scan's answer and report, closing the Reader.
func countOf(rd *Reader, err error) (int64, Report, error) {
	if err != nil {
		return 0, Report{}, err
	}
	defer rd.Close()
	n, err := readCount(rd)
	return n, rd.Report(), err
}

// readCount reads a count scan's one-row batch.
func readCount(rd *Reader) (int64, error) {
	n := int64(-1)
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		c, ok := rec.Column(0).(*array.Int64)
		if ok && rec.NumCols() == 1 && c.Len() == 1 {
			n = c.Value(0)
		}
		rec.Release()
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: %s: the count scan returned no count", ErrProtocol, rd.name)
	}
	return n, nil
}

// MinMax answers SELECT min(col), max(col) FROM f WHERE o.Where with the engine's min/max
// mode (ScanOptions.MinMax): a one-row record with columns "min" and "max" of col's type
// (nulls when no matching row has a value; NaN sorts above every float, as in DuckDB). Row
// groups that wholly match and whose statistics are exact and trusted give their bounds
// from the footer; the others read col over their candidate pages. Report.
// RowGroupsFromMetadata and RowsCountedFromMetadata say how much needed no data. The caller
// releases the record. Limit, Offset, Count and RowIndex must be unset.
func (f *File) MinMax(ctx context.Context, col string, o ScanOptions) (arrow.RecordBatch, Report, error) {
	o.MinMax, o.Columns = col, nil
	return minMaxOf(f.Scan(ctx, o))
}

// MinMax answers SELECT min(col), max(col) over the table WHERE o.Where, as File.MinMax does
// for one file, folding its files' answers (col is a top-level table column, a partition
// column too). Files the partition values or Delta statistics rule out contribute nothing and
// fetch nothing; a file they prove all-match is answered from the Delta log when its
// minValues/maxValues are exact (never for strings, which writers truncate, millisecond
// timestamp bounds or floats, whose NaN the log does not count) or, for a partition column,
// from its partition value (Report.RowsCountedFromMetadata counts their rows); every other
// file runs File.MinMax with its residual predicate (a partition column: File.Count, its
// value counting when a row matches).
func (d *Dataset) MinMax(ctx context.Context, col string, o ScanOptions) (arrow.RecordBatch, Report, error) {
	o.MinMax, o.Columns = col, nil
	return minMaxOf(d.Scan(ctx, o))
}

// minMaxOf reads a min/max scan's one-row answer and report, closing the Reader.
func minMaxOf(rd *Reader, err error) (arrow.RecordBatch, Report, error) {
	if err != nil {
		return nil, Report{}, err
	}
	defer rd.Close()
	var out arrow.RecordBatch
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if out != nil {
				out.Release()
			}
			return nil, rd.Report(), err
		}
		if out != nil {
			out.Release()
		}
		out = rec
	}
	if out == nil || out.NumRows() != 1 || out.NumCols() != 2 {
		if out != nil {
			out.Release()
		}
		return nil, rd.Report(), fmt.Errorf("%w: %s: the min/max scan returned no answer", ErrProtocol, rd.name)
	}
	return out, rd.Report(), nil
}
