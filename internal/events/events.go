// Package events generates the benchmark's events table as Parquet, deterministically (fixed
// seeds: the same Config gives the same bytes), with arrow-go's pqarrow writer.
//
// Columns, in file order:
//
//	event_time  TIMESTAMP(MICROS, UTC)  uniform over 2026-10-01 .. 2026-11-01
//	tenant_id   INT64                   5,000 tenants (Config.Tenants), ids 1000.. in a random
//	                                    order (Config.FirstTenantID), Zipf-skewed (the largest
//	                                    ~16 % of rows)
//	user_id     INT64                   each user belongs to one tenant; ~rows/4 distinct ids,
//	                                    scrambled so that they do not follow tenant order
//	event_type  STRING                  20 values, skewed
//	country     STRING                  60 values, skewed
//	value       DOUBLE                  log-normal amounts rounded to cents
//	payload     STRING                  80–200 bytes of words
//
// Layouts (all zstd, ~64 KiB data pages, a bloom filter on user_id, dictionary encoding with
// arrow-go's default fallback to PLAIN when a dictionary exceeds 1 MiB):
//
//	sorted    rows sorted by (tenant_id, event_time), 2^20-row row groups, page index,
//	          sorting_columns recorded
//	small-rg  the same rows and order, 2^16-row row groups, no page index
//	unsorted  the same rows in generation (random) order, 2^20-row row groups, page index
//
// Memory: about 32 bytes per row while generating, plus one buffered row group in the writer.
// Not for use in the wasm module (it imports arrow-go).
package events

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Version changes whenever Generate's output for a given Config changes; cache file names
// carry it so that stale files are never reused.
const Version = 1

// Layout is the physical organisation of the file.
type Layout string

const (
	Sorted   Layout = "sorted"
	SmallRG  Layout = "small-rg"
	Unsorted Layout = "unsorted"
)

// Layouts lists every layout, in the order benchmarks report them.
var Layouts = []Layout{Sorted, SmallRG, Unsorted}

// Time span of event_time: [Start, End).
var (
	Start = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	End   = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
)

const (
	// Tenants is the number of distinct tenant ids when Config.Tenants is 0.
	Tenants = 5000
	// firstTenantID is the smallest tenant id when Config.FirstTenantID is 0.
	firstTenantID = 1000
	// PageSize is the data page size limit given to the writer.
	PageSize = 64 << 10
	// batchRows is the record batch size handed to the writer; it divides both row group sizes.
	batchRows = 1 << 16
	// defaultSeed is the seed when Config.Seed is 0.
	defaultSeed = 20261001
)

// Config selects what Generate writes.
type Config struct {
	Rows   int    // number of rows; must be > 0
	Layout Layout // "" means Sorted
	// RowGroupRows overrides the layout's row group size (2^20, or 2^16 for small-rg).
	RowGroupRows int
	// Seed selects the data; 0 means the fixed default.
	Seed uint64
	// Tenants is the number of distinct tenant ids; 0 means the constant Tenants (5,000).
	Tenants int
	// FirstTenantID is the smallest tenant id: ids are FirstTenantID .. FirstTenantID+Tenants-1,
	// assigned to the Zipf ranks in a random order; 0 means 1000.
	FirstTenantID int64
}

func (c Config) tenants() (n int, first int64) {
	n, first = c.Tenants, c.FirstTenantID
	if n == 0 {
		n = Tenants
	}
	if first == 0 {
		first = firstTenantID
	}
	return n, first
}

// RowGroupSize is the number of rows per row group the layout writes (the last may be short).
func (c Config) RowGroupSize() int {
	switch {
	case c.RowGroupRows > 0:
		return c.RowGroupRows
	case c.Layout == SmallRG:
		return 1 << 16
	}
	return 1 << 20
}

// PageIndex reports whether the layout writes column and offset indexes.
func (c Config) PageIndex() bool { return c.Layout != SmallRG }

// SortedLayout reports whether rows are sorted by (tenant_id, event_time).
func (c Config) SortedLayout() bool { return c.Layout != Unsorted }

// Column indexes in the schema (also leaf indexes: the schema is flat).
const (
	ColEventTime = iota
	ColTenantID
	ColUserID
	ColEventType
	ColCountry
	ColValue
	ColPayload
)

var eventTypes = []string{
	"page_view", "click", "scroll", "search", "add_to_cart", "remove_from_cart", "checkout_start",
	"purchase", "login", "logout", "signup", "share", "like", "comment", "video_play",
	"video_pause", "download", "upload", "error", "api_call",
}

var countries = []string{
	"US", "IN", "BR", "GB", "DE", "FR", "JP", "CA", "MX", "ID", "IT", "ES", "KR", "AU", "NL",
	"TR", "PL", "SE", "AR", "CO", "PH", "VN", "TH", "NG", "EG", "ZA", "SA", "AE", "CH", "BE",
	"AT", "NO", "DK", "FI", "IE", "PT", "CZ", "RO", "HU", "GR", "IL", "CL", "PE", "MY", "SG",
	"NZ", "PK", "BD", "UA", "KE", "MA", "DZ", "UY", "EC", "BG", "HR", "SK", "LT", "LV", "EE",
}

var words = []string{
	"the", "user", "opened", "a", "session", "from", "mobile", "desktop", "browser", "and",
	"viewed", "product", "page", "with", "id", "item", "cart", "total", "checkout", "payment",
	"failed", "succeeded", "retry", "timeout", "network", "latency", "ms", "region", "edge",
	"cache", "hit", "miss", "request", "response", "status", "ok", "error", "warning", "info",
	"debug", "trace", "span", "service", "api", "v2", "endpoint", "query", "filter", "sort",
	"limit", "offset", "token", "refresh", "expired", "granted", "denied", "click", "button",
	"form", "submit", "search", "results", "empty", "loaded",
}

// Schema is the Arrow schema of the table.
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "tenant_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "event_type", Type: arrow.BinaryTypes.String},
		{Name: "country", Type: arrow.BinaryTypes.String},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
		{Name: "payload", Type: arrow.BinaryTypes.String},
	}, nil)
}

// table holds the generated rows in generation order, column by column.
type table struct {
	time     []int64
	rank     []uint16 // tenant rank (0 = largest)
	user     []int64
	etype    []uint8
	country  []uint8
	value    []float64
	tenantID []int64 // by rank
}

// generate draws the rows of tenants tenants numbered from firstTenant. Rows are i.i.d., so
// generation order is already a random order.
func generate(n int, seed uint64, tenants int, firstTenant int64) *table {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	t := &table{
		time: make([]int64, n), rank: make([]uint16, n), user: make([]int64, n),
		etype: make([]uint8, n), country: make([]uint8, n), value: make([]float64, n),
		tenantID: make([]int64, tenants),
	}
	for i, p := range r.Perm(tenants) {
		t.tenantID[i] = firstTenant + int64(p)
	}
	tz := rand.NewZipf(r, 1.1, 1, uint64(tenants-1))
	ez := rand.NewZipf(r, 1.5, 1, uint64(len(eventTypes)-1))
	cz := rand.NewZipf(r, 1.3, 1, uint64(len(countries)-1))
	start, span := Start.UnixMicro(), End.UnixMicro()-Start.UnixMicro()
	count := make([]int, tenants)
	for i := range n {
		k := tz.Uint64()
		t.rank[i] = uint16(k)
		count[k]++
		t.time[i] = start + r.Int64N(span)
		t.etype[i] = uint8(ez.Uint64())
		t.country[i] = uint8(cz.Uint64())
		t.value[i] = math.Round(math.Exp(3+1.2*r.NormFloat64())*100) / 100
	}
	// Each tenant has a pool of about a quarter as many users as it has events.
	for i := range n {
		k := t.rank[i]
		pool := max(1, count[k]/4)
		t.user[i] = userID(t.tenantID[k], r.IntN(pool))
	}
	return t
}

// userID scrambles (tenant, k) into a positive 62-bit id (an invertible mix, so ids are
// distinct for distinct pairs).
func userID(tenant int64, k int) int64 {
	x := uint64(tenant)<<32 | uint64(k)
	x ^= x >> 31
	x *= 0x7fb5d329728ea185
	x ^= x >> 27
	x *= 0x81dadef4bc2dd44d
	x ^= x >> 33
	return int64(x >> 2)
}

// payload is the row's text, derived from its generation index.
func payload(dst []byte, seed uint64, row int) []byte {
	r := rand.New(rand.NewPCG(seed^0x5bd1e995, uint64(row)))
	n := 80 + r.IntN(121)
	for len(dst) < n {
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, words[r.IntN(len(words))]...)
		if r.IntN(6) == 0 {
			dst = append(dst, '=')
			dst = fmt.Appendf(dst, "%d", r.IntN(100000))
		}
	}
	return dst[:n]
}

// writerProps are the Parquet writer properties of a layout.
func writerProps(cfg Config) *parquet.WriterProperties {
	rg := cfg.RowGroupSize()
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rg)),
		parquet.WithDataPageSize(PageSize),
		// arrow-go checks the page size after each write batch (default 1024 values, ~140 KB of
		// payload): smaller batches keep pages close to PageSize.
		parquet.WithBatchSize(128),
		parquet.WithPageIndexEnabled(cfg.PageIndex()),
		parquet.WithBloomFilterEnabledFor("user_id", true),
		parquet.WithBloomFilterNDVFor("user_id", int64(max(1024, min(rg, cfg.Rows)/4))),
		parquet.WithBloomFilterFPPFor("user_id", 0.01),
		parquet.WithStats(true),
	}
	if cfg.SortedLayout() {
		opts = append(opts, parquet.WithSortingColumns([]parquet.SortingColumn{
			{ColumnIdx: ColTenantID}, {ColumnIdx: ColEventTime},
		}))
	}
	return parquet.NewWriterProperties(opts...)
}

// Generate writes the table with cfg's rows and layout to w.
func Generate(w io.Writer, cfg Config) error {
	cfg, t, seed, err := newTable(cfg)
	if err != nil {
		return err
	}
	order := make([]int32, cfg.Rows)
	for i := range order {
		order[i] = int32(i)
	}
	if cfg.SortedLayout() {
		t.sortByTenant(order)
	}
	return writeRows(w, writerProps(cfg), t, seed, order)
}

// newTable checks cfg, fills in its defaults and draws its rows.
func newTable(cfg Config) (Config, *table, uint64, error) {
	if cfg.Rows <= 0 {
		return cfg, nil, 0, fmt.Errorf("events: %d rows", cfg.Rows)
	}
	if cfg.Layout == "" {
		cfg.Layout = Sorted
	}
	if !slices.Contains(Layouts, cfg.Layout) {
		return cfg, nil, 0, fmt.Errorf("events: unknown layout %q", cfg.Layout)
	}
	tenants, firstTenant := cfg.tenants()
	if tenants < 1 || tenants > math.MaxUint16+1 || firstTenant < 0 {
		return cfg, nil, 0, fmt.Errorf("events: %d tenants from id %d", tenants, firstTenant)
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = defaultSeed
	}
	return cfg, generate(cfg.Rows, seed, tenants, firstTenant), seed, nil
}

// sortByTenant sorts row indexes by (tenant_id, event_time, generation index).
func (t *table) sortByTenant(order []int32) {
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(
			cmp.Compare(t.tenantID[t.rank[a]], t.tenantID[t.rank[b]]),
			cmp.Compare(t.time[a], t.time[b]),
			cmp.Compare(a, b))
	})
}

// writeRows writes the rows order selects of t (in that order) to w as one Parquet file.
func writeRows(w io.Writer, props *parquet.WriterProperties, t *table, seed uint64, order []int32) error {
	schema := Schema()
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var (
		ts  = b.Field(ColEventTime).(*array.TimestampBuilder)
		tid = b.Field(ColTenantID).(*array.Int64Builder)
		uid = b.Field(ColUserID).(*array.Int64Builder)
		et  = b.Field(ColEventType).(*array.StringBuilder)
		co  = b.Field(ColCountry).(*array.StringBuilder)
		val = b.Field(ColValue).(*array.Float64Builder)
		pl  = b.Field(ColPayload).(*array.StringBuilder)
		buf []byte
	)
	for lo := 0; lo < len(order); lo += batchRows {
		hi := min(lo+batchRows, len(order))
		for _, i := range order[lo:hi] {
			ts.Append(arrow.Timestamp(t.time[i]))
			tid.Append(t.tenantID[t.rank[i]])
			uid.Append(t.user[i])
			et.Append(eventTypes[t.etype[i]])
			co.Append(countries[t.country[i]])
			val.Append(t.value[i])
			buf = payload(buf[:0], seed, int(i))
			pl.BinaryBuilder.Append(buf)
		}
		rec := b.NewRecordBatch()
		err := fw.WriteBuffered(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return fmt.Errorf("events: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	return nil
}
