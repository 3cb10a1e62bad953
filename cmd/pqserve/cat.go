package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

// runCat scans a local file, or several as one table (more than one SRC, or a folder written
// with a trailing /), with the native engine (the same scan package the wasm module is built
// from, linked natively) and writes the result as one Arrow IPC stream: the oracle the browser
// end-to-end tests compare the JS bridge and the demo against. -report FILE also writes the
// scan report as JSON.
func runCat(args []string) error {
	var srcs []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		srcs, args = append(srcs, args[0]), args[1:]
	}
	if len(srcs) == 0 {
		usage()
	}
	fs := flag.NewFlagSet("cat", flag.ExitOnError)
	cols := fs.String("columns", "", "comma-separated columns")
	where := fs.String("where", "", "WHERE expression")
	limit := fs.Int64("limit", 0, "row limit")
	offset := fs.Int64("offset", 0, "rows to skip")
	report := fs.String("report", "", "write the scan report as JSON to this file")
	fs.Parse(args)
	ctx := context.Background()
	o := pqscan.ScanOptions{Where: *where, Limit: *limit, Offset: *offset}
	if *cols != "" {
		o.Columns = strings.Split(*cols, ",")
	}
	var r *pqscan.Reader
	if len(srcs) > 1 || strings.HasSuffix(srcs[0], "/") {
		d, err := pqscan.OpenDataset(ctx, srcs, pqscan.Options{})
		if err != nil {
			return err
		}
		defer d.Close()
		if r, err = d.Scan(ctx, o); err != nil {
			return err
		}
	} else {
		f, err := pqscan.Open(ctx, srcs[0], pqscan.Options{})
		if err != nil {
			return err
		}
		defer f.Close()
		if r, err = f.Scan(ctx, o); err != nil {
			return err
		}
	}
	defer r.Close()
	if *report != "" {
		defer writeReport(*report, r)
	}
	w, err := rowfmt.New("arrow", os.Stdout, r.Schema(), rowfmt.Options{})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return w.Close()
}

// writeReport writes r's report (once the scan ended) as JSON to path.
func writeReport(path string, r *pqscan.Reader) {
	b, err := json.MarshalIndent(r.Report(), "", "  ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pqserve cat: report:", err)
	}
}
