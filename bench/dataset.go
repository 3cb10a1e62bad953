package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/faultserver"
)

// The dataset workload: the queries over a month of the events table partitioned by day
// (events.Month: event_date=YYYY-MM-DD/part-N.parquet) served over HTTP by
// internal/faultserver (Range requests, ListObjectsV2 with pagination), read with
// pqscan.OpenDataset on the folder URL, against the same queries on the same rows as one
// file read with pqscan.Open.

// DatasetQuery is one query of the dataset workload, written for both sides.
type DatasetQuery struct {
	Name         string
	Text         string
	DatasetWhere string // over the dataset (may use the event_date partition column)
	FileWhere    string // the same rows over the single file (no event_date column there)
	Columns      []string
	Limit        int64
	// SameRows: both sides must return the same rows (as a multiset, over the single file's
	// columns); a limit without an order only needs the same count.
	SameRows bool
	// Day, when set, is the only day whose files the dataset side may touch.
	Day string
}

// DatasetQueries returns the four queries for p: one tenant in one hour of one day, one
// tenant across the month, one user across the month, the first 100 rows.
func DatasetQueries(p Params) []DatasetQuery {
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
	day := p.Hour.Format("2006-01-02")
	hour := fmt.Sprintf("tenant_id = %d AND event_time >= TIMESTAMP '%s' AND event_time < TIMESTAMP '%s'",
		p.Tenant, ts(p.Hour), ts(p.Hour.Add(time.Hour)))
	tenant := fmt.Sprintf("tenant_id = %d", p.Tenant)
	user := fmt.Sprintf("user_id = %d", p.User)
	return []DatasetQuery{
		{Name: "D1", Text: fmt.Sprintf("event_date = %s, tenant %d, hour %s → event_type, value", day, p.Tenant, p.Hour.Format("15:04")),
			DatasetWhere: fmt.Sprintf("event_date = DATE '%s' AND %s", day, hour), FileWhere: hour,
			Columns: []string{"event_type", "value"}, SameRows: true, Day: day},
		{Name: "D2", Text: fmt.Sprintf("tenant %d, whole month → event_type, value", p.Tenant),
			DatasetWhere: tenant, FileWhere: tenant, Columns: []string{"event_type", "value"}, SameRows: true},
		{Name: "D3", Text: fmt.Sprintf("user_id = %d, whole month → all columns", p.User),
			DatasetWhere: user, FileWhere: user, SameRows: true},
		{Name: "D4", Text: "first 100 rows (Limit 100) → all columns", Limit: 100},
	}
}

// Side is what one query cost on one side (dataset or single file). Everything the side
// sends is counted: the listing pages, the open (OpenDataset reads the first file's footer
// for the table schema; Open reads the file's footer) and the scan.
type Side struct {
	Rows int64
	Hash uint64 // order-independent hash of the rows over the single file's columns
	// Bytes and Requests are faultserver's counters (response body bytes; GET requests of
	// files and listing pages); ListRequests of them are ListObjectsV2 pages.
	Bytes, Requests, ListRequests int64
	// OpenRounds are the round trips of the open without the listing, ScanRounds the scan
	// Reader's Report().RoundTrips; RoundTrips = ListRequests + OpenRounds + ScanRounds.
	// OpenRounds and WireScanRounds are measured on the client's transport as busy periods
	// (a round starts when a request starts with none in flight); WireScanRounds checks
	// ScanRounds.
	OpenRounds, ScanRounds, WireScanRounds, RoundTrips int
	// FilesTouched are the files with any request (open and scan); OpenFiles those of the
	// open alone. A file's first request is its tail, holding the footer, so FootersByDay
	// (day → files touched that day) counts the footers fetched.
	FilesTouched, OpenFiles int
	FootersByDay            map[string]int
	// From the scan report (dataset side): files total, after partition values, read.
	FilesTotal, FilesAfterPartitions, FilesRead int
	Wall                                        time.Duration // open + scan + reading every batch
	// ScanDays: day → files the scan (not the open) sent a request to.
	ScanDays  map[string]int
	openStats map[string]faultserver.PathStats
}

// DatasetResult is one query on both sides.
type DatasetResult struct {
	Query            DatasetQuery
	Dataset, Single  Side
	RowsOK           bool // equal counts (and rows, when SameRows)
	OnlyDay, ScanDay bool // D1: every touched file is of Query.Day (with the open / scan only)
	WithinTwo        bool // Dataset.RoundTrips <= Single.RoundTrips + 2
}

// DatasetConfig configures RunDataset.
type DatasetConfig struct {
	Root         string // an events.MonthCached root: MonthDir/ and SingleFile
	Params       Params
	ListPageSize int           // keys per ListObjectsV2 page; 0 means 100 (so ~120 files take 2 pages)
	Latency      time.Duration // added by the server before every response
	Options      pqscan.Options
}

// RunDataset serves cfg.Root on 127.0.0.1 and runs every query on both sides.
func RunDataset(ctx context.Context, cfg DatasetConfig) ([]DatasetResult, error) {
	if cfg.ListPageSize == 0 {
		cfg.ListPageSize = 100
	}
	srv := faultserver.New(faultserver.Options{Dir: cfg.Root, ListPageSize: cfg.ListPageSize, Latency: cfg.Latency})
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	rt := &roundCounter{next: http.DefaultTransport}
	client := &http.Client{Transport: rt}
	defer client.CloseIdleConnections()
	opts := cfg.Options
	opts.HTTP.Client = client
	var out []DatasetResult
	for _, q := range DatasetQueries(cfg.Params) {
		res := DatasetResult{Query: q}
		res.Dataset, err = runSide(ctx, srv, rt, opts, q, base+"/"+events.MonthDir+"/", true)
		if err != nil {
			return nil, fmt.Errorf("%s dataset: %w", q.Name, err)
		}
		res.Single, err = runSide(ctx, srv, rt, opts, q, base+"/"+events.SingleFile, false)
		if err != nil {
			return nil, fmt.Errorf("%s single file: %w", q.Name, err)
		}
		res.RowsOK = res.Dataset.Rows == res.Single.Rows && (!q.SameRows || res.Dataset.Hash == res.Single.Hash)
		res.WithinTwo = res.Dataset.RoundTrips <= res.Single.RoundTrips+2
		if q.Day != "" {
			res.OnlyDay, res.ScanDay = true, true
			for day, n := range res.Dataset.FootersByDay {
				if day != q.Day && n > 0 {
					res.OnlyDay = false
				}
			}
			for day, n := range res.Dataset.ScanDays {
				if day != q.Day && n > 0 {
					res.ScanDay = false
				}
			}
		}
		out = append(out, res)
	}
	return out, nil
}

func runSide(ctx context.Context, srv *faultserver.Server, rt *roundCounter, opts pqscan.Options, q DatasetQuery, url string, dataset bool) (Side, error) {
	srv.Reset()
	rt.reset()
	var s Side
	t0 := time.Now()
	// Both sides open, then scan: a table (OpenDataset) or a file (Open).
	type scanner interface {
		Scan(context.Context, pqscan.ScanOptions) (*pqscan.Reader, error)
		Close() error
	}
	var sc scanner
	var err error
	so := pqscan.ScanOptions{Where: q.FileWhere, Columns: q.Columns, Limit: q.Limit}
	if dataset {
		so.Where = q.DatasetWhere
		// The scan forms the schema from its first surviving file: the open reads no
		// footer, so a query of one day fetches no footer of another.
		opts.DeferSchema = true
		sc, err = pqscan.OpenDataset(ctx, []string{url}, opts)
	} else {
		sc, err = pqscan.Open(ctx, url, opts)
	}
	if err != nil {
		return s, err
	}
	defer sc.Close()
	s.openStats = srv.Stats()
	s.OpenRounds = rt.rounds()
	s.WireScanRounds = -rt.rounds()
	r, err := sc.Scan(ctx, so)
	if err != nil {
		return s, err
	}
	defer r.Close()
	var names []string // the single file's columns: the dataset's minus the partition column
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, err
		}
		if names == nil {
			for _, f := range rec.Schema().Fields() {
				if f.Name != "event_date" {
					names = append(names, f.Name)
				}
			}
			sort.Strings(names)
		}
		s.Rows += rec.NumRows()
		s.Hash += setHash(rec, names)
		rec.Release()
	}
	s.Wall = time.Since(t0)
	s.WireScanRounds += rt.rounds()
	rep := r.Report()
	s.ScanRounds = rep.RoundTrips
	s.FilesTotal, s.FilesAfterPartitions, s.FilesRead = rep.FilesTotal, rep.FilesAfterPartitions, rep.FilesRead
	s.FootersByDay, s.ScanDays = map[string]int{}, map[string]int{}
	for p, st := range srv.Stats() {
		s.Requests += st.Requests
		s.Bytes += st.Bytes
		if p == "/?list-type=2" {
			s.ListRequests += st.Requests
			continue
		}
		if st.Requests == 0 {
			continue
		}
		s.FilesTouched++
		day := dayOf(p)
		s.FootersByDay[day]++
		if o := s.openStats[p]; o.Requests > 0 {
			s.OpenFiles++
		}
		if o := s.openStats[p]; st.Requests > o.Requests {
			s.ScanDays[day]++
		}
	}
	s.OpenRounds -= int(s.ListRequests) // listing pages are sequential: one busy period each
	s.RoundTrips = int(s.ListRequests) + s.OpenRounds + s.ScanRounds
	return s, nil
}

// dayOf returns the YYYY-MM-DD of a path's event_date= folder, or "single" for the single file.
func dayOf(p string) string {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if d, ok := strings.CutPrefix(seg, "event_date="); ok {
			return d
		}
	}
	return "single"
}

// setHash sums the row hashes of rec over the named columns (an order-independent hash of a
// multiset of rows).
func setHash(rec arrow.RecordBatch, names []string) uint64 {
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		idx := rec.Schema().FieldIndices(n)
		if len(idx) != 1 {
			return 0
		}
		cols[i] = rec.Column(idx[0])
	}
	var sum uint64
	for r := range int(rec.NumRows()) {
		x := uint64(0x9e3779b97f4a7c15)
		for _, c := range cols {
			x = mix(x ^ valueHash(c, r))
		}
		sum += mix(x)
	}
	return sum
}

// roundCounter is an http.RoundTripper that counts busy periods: a round starts when a
// request starts while none is in flight, and a request is in flight until its body is
// closed or read to the end. A driver that sends a round of requests, waits for all, then
// sends the next, has one busy period per round.
type roundCounter struct {
	next     http.RoundTripper
	mu       sync.Mutex
	inFlight int
	n        int
}

func (c *roundCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = 0
}

func (c *roundCounter) rounds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *roundCounter) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
}

func (c *roundCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.inFlight == 0 {
		c.n++
	}
	c.inFlight++
	c.mu.Unlock()
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		c.done()
		return nil, err
	}
	resp.Body = &trackedBody{ReadCloser: resp.Body, done: c.done}
	return resp, nil
}

// trackedBody calls done once, at EOF or Close, whichever comes first.
type trackedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *trackedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// daysSummary prints a day → count map compactly: "31 days × 4" when every day has the same
// count, else "MM-DD: n" items in day order.
func daysSummary(m map[string]int) string {
	if len(m) == 0 {
		return "–"
	}
	days := make([]string, 0, len(m))
	for d := range m {
		days = append(days, d)
	}
	slices.Sort(days)
	same := true
	for _, d := range days {
		same = same && m[d] == m[days[0]]
	}
	if same && len(days) > 2 {
		return fmt.Sprintf("%d days × %d", len(days), m[days[0]])
	}
	var parts []string
	for _, d := range days {
		parts = append(parts, fmt.Sprintf("%s: %d", strings.TrimPrefix(d, "2026-"), m[d]))
	}
	return strings.Join(parts, ", ")
}

// WriteDatasetTable prints the results as a Markdown table (two lines per query), then the
// checks.
func WriteDatasetTable(w io.Writer, rs []DatasetResult) {
	fmt.Fprintln(w, "| query | side | rows | fetched | requests (list) | round trips: list + open + scan = total | files touched (open) | footers fetched per day | wall |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|---:|")
	for _, r := range rs {
		for i, s := range []Side{r.Dataset, r.Single} {
			name, side := r.Query.Name+" "+r.Query.Text, "dataset"
			if i == 1 {
				name, side = "", "single file"
			}
			wire := ""
			if s.WireScanRounds != s.ScanRounds {
				wire = fmt.Sprintf(" (wire: %d)", s.WireScanRounds)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %d (%d) | %d + %d + %d%s = **%d** | %d (%d) | %s | %v |\n",
				name, side, s.Rows, mb(s.Bytes), s.Requests, s.ListRequests,
				s.ListRequests, s.OpenRounds, s.ScanRounds, wire, s.RoundTrips,
				s.FilesTouched, s.OpenFiles, daysSummary(s.FootersByDay), s.Wall.Round(time.Millisecond))
		}
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		d, s := r.Dataset, r.Single
		fmt.Fprintf(w, "- %s: rows %d = %d: %s; files %d → %d after partition values → %d read; round trips %d vs %d: within two: %s\n",
			r.Query.Name, d.Rows, s.Rows, yes(r.RowsOK), d.FilesTotal, d.FilesAfterPartitions, d.FilesRead,
			d.RoundTrips, s.RoundTrips, yesBy(r.WithinTwo, d.RoundTrips-s.RoundTrips-2))
		if r.Query.Day != "" {
			var other []string
			for day, n := range d.FootersByDay {
				if day != r.Query.Day {
					other = append(other, fmt.Sprintf("%s (%d file(s))", day, n))
				}
			}
			slices.Sort(other)
			fmt.Fprintf(w, "  only the files of %s touched, open and scan: %s", r.Query.Day, yes(r.OnlyDay))
			if len(other) > 0 {
				fmt.Fprintf(w, " — also %s", strings.Join(other, ", "))
			}
			fmt.Fprintf(w, "; by the scan alone: %s (%s)\n", yes(r.ScanDay), daysSummary(d.ScanDays))
		}
	}
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

func yesBy(ok bool, over int) string {
	if ok {
		return "yes"
	}
	return fmt.Sprintf("NO (%d over)", over)
}
