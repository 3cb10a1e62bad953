package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/optimize"
	"github.com/pqscan/pqscan/internal/scan"
)

// inspectDataset is inspect over several files: per file its size, rows, row groups and how
// many of its bytes are metadata (footer, page index, bloom filters) rather than data, the
// totals, and whether to compact (optimize.AdviseDataset). Each file's footer is read once.
func inspectDataset(ctx context.Context, w io.Writer, srcs []string, o pqscan.Options) error {
	ds, err := pqscan.OpenDataset(ctx, srcs, o)
	if err != nil {
		return err
	}
	files := ds.Files()
	ds.Close()
	var layouts []optimize.FileLayout
	var size, data, rows int64
	for _, p := range files {
		f, err := pqscan.Open(ctx, p, o)
		if err != nil {
			return err
		}
		m := scan.Thrift(f.Metadata())
		if m == nil {
			f.Close()
			return fmt.Errorf("inspect: the engine gave no Thrift footer (inspect uses the native engine)")
		}
		l := optimize.Layout(p, f.Size(), m)
		f.Close()
		layouts = append(layouts, l)
		size, data, rows = size+l.Size, data+l.DataBytes, rows+l.Rows
		fmt.Fprintf(w, "file %s: %d bytes, %d rows, %d row groups, %d data bytes, %d footer+index bytes\n",
			p, l.Size, l.Rows, l.RowGroups, l.DataBytes, l.MetaBytes())
	}
	fmt.Fprintf(w, "dataset: %d files, %d bytes, %d rows, %d data bytes, %d footer+index bytes\n",
		len(files), size, rows, data, size-data)
	adv := optimize.AdviseDataset(layouts)
	if len(adv) == 0 {
		fmt.Fprintln(w, "advice: none")
	}
	for _, a := range adv {
		fmt.Fprintf(w, "advice: %s\n", a)
	}
	return nil
}
