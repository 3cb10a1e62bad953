// Command dsagg measures count, min/max and ORDER BY … LIMIT (top-k) over the dataset
// workload's month (bench/cmd/dataset: event_date=YYYY-MM-DD/part-N.parquet, served on
// 127.0.0.1 by internal/faultserver with ListObjectsV2) beside the same rows as one file, and
// checks every answer against DuckDB (npm @duckdb/node-api in duckdb/, `make duckdb-deps`)
// over the same files. It prints, per query and side, the answer, bytes and requests (listing
// pages included) and the files read or skipped; it exits non-zero when an answer differs.
//
//	go run ./bench/cmd/dsagg -rows 1500000 -parts 4 -dir .cache/events
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/bench"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/faultserver"
)

// query is one measured question: a count, a min/max of Col, or the Col values of a sort.
type query struct {
	name, kind, col, where, orderBy string
	limit                           int64
}

// source is what both sides are: a dataset or a file.
type source interface {
	Count(context.Context, pqscan.ScanOptions) (int64, pqscan.Report, error)
	MinMax(context.Context, string, pqscan.ScanOptions) (arrow.RecordBatch, pqscan.Report, error)
	Scan(context.Context, pqscan.ScanOptions) (*pqscan.Reader, error)
	Close() error
}

func main() {
	rows := flag.Int("rows", 1_500_000, "rows of the month")
	parts := flag.Int("parts", 4, "files per day")
	dir := flag.String("dir", ".cache/events", "cache directory of generated files")
	flag.Parse()
	log.SetFlags(0)
	root, err := events.MonthCached(*dir, events.Month{Config: events.Config{Rows: *rows}, Parts: *parts})
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := bench.LoadParams(filepath.Join(root, events.SingleFile))
	if err != nil {
		log.Fatal(err)
	}
	tenant := fmt.Sprintf("tenant_id = %d", p.Tenant)
	queries := []query{
		{name: "count(*)", kind: "count"},
		{name: "count " + tenant, kind: "count", where: tenant},
		{name: "min/max value", kind: "minmax", col: "value"},
		{name: "min/max event_time " + tenant, kind: "minmax", col: "event_time", where: tenant},
		{name: "min/max event_date", kind: "minmax", col: "event_date"},
		{name: "ORDER BY value DESC LIMIT 10", kind: "sort", col: "value", orderBy: "value DESC", limit: 10},
		{name: "ORDER BY value LIMIT 10", kind: "sort", col: "value", orderBy: "value", limit: 10},
		{name: "ORDER BY event_time LIMIT 10", kind: "sort", col: "event_time", orderBy: "event_time", limit: 10},
		{name: "ORDER BY event_date DESC, value DESC LIMIT 10", kind: "sort", col: "value", orderBy: "event_date DESC, value DESC", limit: 10},
		{name: "ORDER BY event_time DESC LIMIT 10 " + tenant, kind: "sort", col: "event_time", orderBy: "event_time DESC", where: tenant, limit: 10},
	}
	srv := faultserver.New(faultserver.Options{Dir: root, ListPageSize: 100})
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	duck := duckAnswers(root, queries)
	ctx := context.Background()
	bad := false
	fmt.Printf("| query | side | answer | DuckDB | bytes | requests | round trips | files read / skipped by bound |\n|---|---|---|---|---:|---:|---:|---|\n")
	for i, q := range queries {
		for _, side := range []string{"dataset", "file"} {
			srv.Reset()
			var src source
			if side == "dataset" {
				src, err = pqscan.OpenDataset(ctx, []string{base + "/" + events.MonthDir + "/"}, pqscan.Options{DeferSchema: true})
			} else {
				if q.col == "event_date" || strings.Contains(q.orderBy, "event_date") {
					continue // not a column of the single file
				}
				src, err = pqscan.Open(ctx, base+"/"+events.SingleFile, pqscan.Options{})
			}
			if err != nil {
				log.Fatal(err)
			}
			got, rep, err := answer(ctx, src, q)
			src.Close()
			if err != nil {
				log.Fatalf("%s %s: %v", q.name, side, err)
			}
			var bytes, reqs int64
			for _, st := range srv.Stats() {
				bytes, reqs = bytes+st.Bytes, reqs+st.Requests
			}
			skipped := 0
			for _, f := range rep.Files {
				if f.SkippedBy == "top-k" {
					skipped++
				}
			}
			ok := got == duck[i]
			bad = bad || !ok
			files := "–"
			if side == "dataset" {
				files = fmt.Sprintf("%d / %d of %d", rep.FilesRead, skipped, rep.FilesTotal)
			}
			fmt.Printf("| %s | %s | %s | %s | %d | %d | %d | %s |\n", q.name, side, short(got), map[bool]string{true: "equal", false: "DIFFERS: " + short(duck[i])}[ok], bytes, reqs, rep.RoundTrips, files)
		}
	}
	if bad {
		os.Exit(1)
	}
}

// answer runs q on src and renders its answer as DuckDB's query renders it.
func answer(ctx context.Context, src source, q query) (string, pqscan.Report, error) {
	so := pqscan.ScanOptions{Where: q.where}
	switch q.kind {
	case "count":
		n, rep, err := src.Count(ctx, so)
		return fmt.Sprint(n), rep, err
	case "minmax":
		rec, rep, err := src.MinMax(ctx, q.col, so)
		if err != nil {
			return "", rep, err
		}
		defer rec.Release()
		return render(rec.Column(0), 0) + " " + render(rec.Column(1), 0), rep, nil
	}
	so.Columns, so.OrderBy, so.Limit = []string{q.col}, q.orderBy, q.limit
	r, err := src.Scan(ctx, so)
	if err != nil {
		return "", pqscan.Report{}, err
	}
	defer r.Close()
	var vals []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", r.Report(), err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			vals = append(vals, render(rec.Column(0), i))
		}
		rec.Release()
	}
	return strings.Join(vals, " "), r.Report(), nil
}

// render is element i of a as the DuckDB side renders it (timestamps as
// "YYYY-MM-DD HH:MM:SS.ffffff", dates as YYYY-MM-DD).
func render(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	if ts, ok := a.(*array.Timestamp); ok {
		unit := ts.DataType().(*arrow.TimestampType).Unit
		return ts.Value(i).ToTime(unit).UTC().Format("2006-01-02 15:04:05.000000")
	}
	return a.ValueStr(i)
}

func short(s string) string {
	if len(s) > 60 && os.Getenv("DSAGG_FULL") == "" {
		return s[:57] + "…"
	}
	return s
}

// duckAnswers runs each query with DuckDB over the month's files.
func duckAnswers(root string, qs []query) []string {
	from := fmt.Sprintf("read_parquet('%s', hive_partitioning = true)", filepath.Join(root, events.MonthDir, "*", "*.parquet"))
	var sqls []string
	for _, q := range qs {
		w := ""
		if q.where != "" {
			w = " WHERE " + q.where
		}
		switch q.kind {
		case "count":
			sqls = append(sqls, "SELECT CAST(count(*) AS VARCHAR) FROM "+from+w)
		case "minmax":
			sqls = append(sqls, fmt.Sprintf("SELECT %s || ' ' || %s FROM %s%s", duckVal("min("+q.col+")"), duckVal("max("+q.col+")"), from, w))
		default:
			sqls = append(sqls, fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s LIMIT %d", duckVal(q.col), from, w, q.orderBy, q.limit))
		}
	}
	out, err := exec.Command("node", append([]string{filepath.Join("duckdb", "query.mjs")}, sqls...)...).Output()
	if err != nil {
		log.Fatalf("duckdb: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var res []string
	for i, q := range qs {
		var rows [][]string
		if err := json.Unmarshal([]byte(lines[i]), &rows); err != nil {
			log.Fatalf("duckdb %s: %v", q.name, err)
		}
		var vals []string
		for _, r := range rows {
			vals = append(vals, r[0])
		}
		res = append(res, strings.Join(vals, " "))
	}
	return res
}

// duckVal renders a value expression as render does.
func duckVal(e string) string {
	return fmt.Sprintf("CASE WHEN typeof(%[1]s) LIKE 'TIMESTAMP%%' THEN strftime(%[1]s::TIMESTAMP, '%%Y-%%m-%%d %%H:%%M:%%S.%%f') ELSE CAST(%[1]s AS VARCHAR) END", e)
}
