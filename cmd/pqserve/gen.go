package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pqscan/pqscan/internal/events"
)

// sampleConfig is the demo's dataset: the benchmark's events table (internal/events, the one
// generator) at 200,000 rows in four 65,536-row row groups, sorted by tenant, with statistics,
// a page index and a bloom filter on user_id, so that every level of skipping shows in the
// demo. 200 tenants numbered 1..200 keep the demo query (tenant_id = 42 AND event_type =
// 'purchase', in web/app.js, mk/js.mk and the e2e tests) inside one row group with a few dozen
// rows; gen_test.go checks what those depend on.
func sampleConfig(rows int) events.Config {
	return events.Config{Rows: rows, Layout: events.Sorted, RowGroupRows: 1 << 16, Tenants: 200, FirstTenantID: 1}
}

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("o", ".cache/sample/events.parquet", "output file")
	rows := fs.Int("rows", 200_000, "number of rows")
	rgRows := fs.Int("rg-rows", 0, "rows per row group (0: the sample's 65,536)")
	fs.Parse(args)
	cfg := sampleConfig(*rows)
	if *rgRows > 0 {
		cfg.RowGroupRows = *rgRows
	}
	if err := writeSample(*out, cfg); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d rows, %d bytes\n", *out, *rows, st.Size())
	return nil
}

// writeSample writes cfg's table to path through a temporary file, so that an interrupted run
// never leaves a partial file under the final name.
func writeSample(path string, cfg events.Config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = events.Generate(w, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
