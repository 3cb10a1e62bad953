package main

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

// runCat scans a local file with the native engine (the same scan package the wasm module is
// built from, linked natively) and writes the result as one Arrow IPC stream: the oracle the
// browser end-to-end tests compare the JS bridge against.
func runCat(args []string) error {
	if len(args) < 1 {
		usage()
	}
	path := args[0]
	fs := flag.NewFlagSet("cat", flag.ExitOnError)
	cols := fs.String("columns", "", "comma-separated columns")
	where := fs.String("where", "", "WHERE expression")
	limit := fs.Int64("limit", 0, "row limit")
	offset := fs.Int64("offset", 0, "rows to skip")
	fs.Parse(args[1:])
	ctx := context.Background()
	f, err := pqscan.Open(ctx, path, pqscan.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	o := pqscan.ScanOptions{Where: *where, Limit: *limit, Offset: *offset}
	if *cols != "" {
		o.Columns = strings.Split(*cols, ",")
	}
	r, err := f.Scan(ctx, o)
	if err != nil {
		return err
	}
	defer r.Close()
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
