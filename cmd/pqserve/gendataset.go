package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pqscan/pqscan/internal/events"
)

// datasetConfig is the demo's dataset mode sample: the benchmark's month dataset
// (events.Month: event_date=YYYY-MM-DD/part-N.parquet, each file sorted by tenant, with
// statistics, a page index and a bloom filter) at rows rows over the whole month, of which only
// the first days are kept, so that it stays small (a few hundred KB) while the picture still
// shows every level: partition values skip days, row-group statistics skip tenants, the page
// index skips pages. Tenants are numbered 1..200 as in the single-file sample (sampleConfig).
func datasetConfig(rows int) events.Month {
	return events.Month{Config: events.Config{Rows: rows, RowGroupRows: 2048, Tenants: 200, FirstTenantID: 1}, Parts: 2}
}

// datasetWhere is the dataset mode's demo query (printed by serve; e2e/tests/demo.test.js):
// partition values skip the first two days, statistics all but one row group per file.
const datasetWhere = "event_date >= DATE '2026-10-03' AND tenant_id = 42"

func runGenDataset(args []string) error {
	fs := flag.NewFlagSet("gen-dataset", flag.ExitOnError)
	out := fs.String("o", ".cache/sample/ds", "output folder (replaced)")
	rows := fs.Int("rows", 200_000, "rows of the whole month, before the days after -days are dropped")
	days := fs.Int("days", 4, "days kept (the month's first)")
	fs.Parse(args)
	files, err := writeDataset(*out, datasetConfig(*rows), *days)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d files over %d days\n", *out, len(files), *days)
	return nil
}

// writeDataset generates m in a temporary folder beside out, keeps the first days day folders
// and renames the result to out, so that an interrupted run leaves no partial dataset there.
// It returns the files' paths relative to out, sorted.
func writeDataset(out string, m events.Month, days int) ([]string, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".gen-ds-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := events.GenerateMonth(tmp, m); err != nil {
		return nil, err
	}
	month := filepath.Join(tmp, events.MonthDir)
	dirs, err := os.ReadDir(month)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(dirs))
	for _, d := range dirs {
		names = append(names, d.Name())
	}
	sort.Strings(names)
	for i, n := range names {
		if i >= days {
			if err := os.RemoveAll(filepath.Join(month, n)); err != nil {
				return nil, err
			}
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	if err := os.Rename(month, out); err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(files)
	return files, err
}
