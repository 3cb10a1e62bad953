// Command lowerbound runs the benchmark queries on the generated events files (generating
// them into -dir first if needed) and prints bytes fetched, requests and round trips beside
// the page-level lower bound, and a breakdown of where the fetched bytes went; then two
// counts (SELECT count(*), without a predicate and for Q1's tenant) beside their bound; then
// the top-10 by value DESC (ORDER BY value DESC LIMIT 10) beside the whole value column.
//
//	go run ./bench/cmd/lowerbound -rows 4000000 -dir .cache/events
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/pqscan/pqscan/bench"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/scan"
)

func main() {
	rows := flag.Int("rows", 4_000_000, "rows of the generated table")
	dir := flag.String("dir", ".cache/events", "cache directory of generated files")
	layouts := flag.String("layouts", "sorted,small-rg,unsorted", "layouts to run, comma-separated")
	details := flag.Bool("details", true, "print the per-query breakdown")
	verbose := flag.Bool("v", false, "print the engine's log lines")
	tail := flag.Int64("tail", 0, "scan.Options.TailSize (0 = engine default)")
	maxGap := flag.Int64("maxgap", 0, "scan.Options.MaxGap (0 = engine default)")
	rtBytes := flag.Int64("rtbytes", 0, "scan.Options.RoundTripBytes (0 = engine default)")
	genOnly := flag.Bool("gen-only", false, "only generate the files")
	flag.Parse()
	log.SetFlags(0)

	paths := map[events.Layout]string{}
	for _, name := range strings.Split(*layouts, ",") {
		lay := events.Layout(strings.TrimSpace(name))
		t0 := time.Now()
		p, err := events.Cached(*dir, events.Config{Rows: *rows, Layout: lay})
		if err != nil {
			log.Fatalf("generate %s: %v", lay, err)
		}
		paths[lay] = p
		if d := time.Since(t0); d > time.Second {
			log.Printf("generated %s in %v", p, d.Round(time.Millisecond))
		}
	}
	if *genOnly {
		return
	}
	// The literals come from the data, which every layout holds; use the sorted file's.
	src, err := events.Cached(*dir, events.Config{Rows: *rows, Layout: events.Sorted})
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := bench.LoadParams(src)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("events table: %d rows; Q1 tenant %d (rank %d of %d tenants, %d rows), hour %s; Q2 user %d\n",
		*rows, p.Tenant, p.TenantRank, p.TenantCount, p.TenantRows, p.Hour.Format(time.RFC3339), p.User)
	opts := scan.Options{TailSize: *tail, MaxGap: *maxGap, RoundTripBytes: *rtBytes}
	failed := false
	for _, name := range strings.Split(*layouts, ",") {
		lay := events.Layout(strings.TrimSpace(name))
		file, err := os.ReadFile(paths[lay])
		if err != nil {
			log.Fatal(err)
		}
		rs, err := bench.Run(file, p, opts)
		if err != nil {
			log.Fatalf("%s: %v", lay, err)
		}
		fmt.Printf("\n## %s (%s, %.1f MiB)\n\n", lay, events.FileName(events.Config{Rows: *rows, Layout: lay}), float64(len(file))/(1<<20))
		bench.WriteTable(os.Stdout, rs)
		if *details {
			bench.WriteDetails(os.Stdout, rs, *verbose)
		}
		for _, r := range rs {
			failed = failed || !r.Correct()
		}
		cs, err := bench.RunCounts(file, p, opts)
		if err != nil {
			log.Fatalf("%s counts: %v", lay, err)
		}
		fmt.Println()
		bench.WriteCounts(os.Stdout, cs)
		for _, c := range cs {
			failed = failed || c.Err != nil || c.Got != c.Want
		}
		tk, err := bench.RunTopK(file, opts)
		if err != nil {
			log.Fatalf("%s top-k: %v", lay, err)
		}
		fmt.Println()
		bench.WriteTopK(os.Stdout, tk)
		failed = failed || !tk.Correct()
	}
	if failed {
		log.Fatal("some query returned wrong rows")
	}
}
