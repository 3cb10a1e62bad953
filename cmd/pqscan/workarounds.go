package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/scan"
)

// maxInspectIndex bounds the offset index inspect fetches per column chunk.
const maxInspectIndex = 16 << 20

// printWorkarounds lists which reader workarounds apply to the file: writer bugs
// keyed on created_by (format.WriterBugs), schema corners (empty groups skipped, logical and
// converted types that disagree), and offset indexes that do not tile their chunk (those are
// fetched here to be checked, as a scan checks them). BIT_PACKED levels are not listed: the
// encodings list cannot tell them apart (parquet-mr lists BIT_PACKED for absent levels).
func printWorkarounds(ctx context.Context, w io.Writer, f *pqscan.File) error {
	m := scan.Thrift(f.Metadata())
	if m == nil {
		return fmt.Errorf("inspect: the engine gave no Thrift footer (inspect uses the native engine)")
	}
	var lines []string
	var v format.WriterVersion
	if m.CreatedBy != nil {
		v = format.ParseCreatedBy(*m.CreatedBy)
	}
	for _, b := range v.Bugs() {
		lines = append(lines, b.ID+": "+b.Summary)
	}
	if s, err := decode.BuildSchema(m.Schema); err == nil {
		for _, p := range s.Skipped {
			lines = append(lines, fmt.Sprintf("empty group %q: it has no children and is skipped, as arrow-rs does", p))
		}
		for _, p := range s.Reconciled {
			lines = append(lines, fmt.Sprintf("column %q: its logical type disagrees with its converted type; read by the converted type, as parquet-java does", p))
		}
	}
	type loc struct {
		rg   int
		path string
		cm   *format.ColumnMetaData
		r    httprange.Range
	}
	var idx []loc
	for i, rg := range m.RowGroups {
		for _, cc := range rg.Columns {
			md := cc.MetaData
			if md == nil {
				continue
			}
			path := strings.Join(md.PathInSchema, ".")
			if o, n := cc.OffsetIndexOffset, cc.OffsetIndexLength; o != nil && n != nil && *o >= 4 && *n > 0 && *n <= maxInspectIndex && *o+int64(*n) <= f.Size() {
				idx = append(idx, loc{i, path, md, httprange.Range{Off: *o, Len: int64(*n)}})
			}
		}
	}
	if len(idx) > 0 {
		ranges := make([]httprange.Range, len(idx))
		for i, l := range idx {
			ranges[i] = l.r
		}
		bad := map[int64]bool{}
		err := f.Source().Fetch(ctx, ranges, func(off int64, b []byte) error {
			for _, l := range idx {
				if l.r.Off != off {
					continue
				}
				oi, err := format.DecodeOffsetIndex(b)
				if err != nil || !oi.TilesChunk(l.cm, m.RowGroups[l.rg].NumRows) {
					bad[off] = true
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, l := range idx {
			if bad[l.r.Off] {
				lines = append(lines, fmt.Sprintf("row group %d column %q: offset index does not tile its chunk (page sizes without headers?): "+
					"read by walking page headers, its column index not used", l.rg, l.path))
			}
		}
	}
	if len(lines) == 0 {
		fmt.Fprintln(w, "workarounds: none")
		return nil
	}
	for _, l := range lines {
		fmt.Fprintln(w, "workaround: "+l)
	}
	return nil
}
