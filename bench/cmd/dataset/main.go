// Command dataset runs the dataset workload: a month of the events table partitioned by day
// (event_date=YYYY-MM-DD/part-N.parquet, generated once into -dir), served on 127.0.0.1 by
// internal/faultserver with a paginated ListObjectsV2 endpoint and read with
// pqscan.OpenDataset on the folder URL, beside the same queries on the same rows as one file
// (pqscan.Open). It prints rows, bytes, requests, round trips, files touched, footers per day
// and wall time per query, and the checks against the single file; it exits non-zero when
// the two sides return different rows.
//
//	go run ./bench/cmd/dataset -rows 1500000 -parts 4 -dir .cache/events
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/bench"
	"github.com/pqscan/pqscan/internal/events"
)

func main() {
	rows := flag.Int("rows", 1_500_000, "rows of the month (dataset and single file)")
	parts := flag.Int("parts", 4, "files per day")
	dir := flag.String("dir", ".cache/events", "cache directory of generated files")
	listPage := flag.Int("list-page", 100, "keys per ListObjectsV2 page")
	latency := flag.Duration("latency", 0, "server latency added to every response")
	tail := flag.Int64("tail", 0, "Options.TailSize (0 = engine default)")
	genOnly := flag.Bool("gen-only", false, "only generate the files")
	flag.Parse()
	log.SetFlags(0)

	m := events.Month{Config: events.Config{Rows: *rows}, Parts: *parts}
	t0 := time.Now()
	root, err := events.MonthCached(*dir, m)
	if err != nil {
		log.Fatalf("generate: %v", err)
	}
	if d := time.Since(t0); d > time.Second {
		log.Printf("generated %s in %v", root, d.Round(time.Millisecond))
	}
	if *genOnly {
		return
	}
	files, size := 0, int64(0)
	filepath.WalkDir(filepath.Join(root, events.MonthDir), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if fi, err := e.Info(); err == nil {
				files++
				size += fi.Size()
			}
		}
		return nil
	})
	p, t, err := bench.LoadParams(filepath.Join(root, events.SingleFile))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("month dataset: %d rows in %d files (%.1f MiB); single file %.1f MiB, %d row groups\n",
		*rows, files, float64(size)/(1<<20), float64(len(t.File))/(1<<20), t.RowGroups())
	fmt.Printf("tenant %d (rank %d of %d, %d rows), hour %s, user %d; ListObjectsV2 pages of %d keys, latency %v\n\n",
		p.Tenant, p.TenantRank, p.TenantCount, p.TenantRows, p.Hour.Format(time.RFC3339), p.User, *listPage, *latency)
	t = nil
	rs, err := bench.RunDataset(context.Background(), bench.DatasetConfig{
		Root: root, Params: p, ListPageSize: *listPage, Latency: *latency,
		Options: pqscan.Options{TailSize: *tail},
	})
	if err != nil {
		log.Fatal(err)
	}
	bench.WriteDatasetTable(os.Stdout, rs)
	for _, r := range rs {
		if !r.RowsOK {
			log.Fatalf("%s: the dataset returned %d rows, the single file %d (or other rows)", r.Query.Name, r.Dataset.Rows, r.Single.Rows)
		}
	}
}
