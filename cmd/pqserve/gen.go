package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The sample dataset: an events table sorted by tenant, written with statistics, a page index,
// small pages and a bloom filter on user_id, so that every level of skipping shows in the demo.
var (
	eventTypes = []string{"view", "view", "view", "view", "click", "click", "add_to_cart", "purchase", "signup", "logout"}
	countries  = []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL", "ES", "IT", "SE", "PL", "MX", "KR"}
)

const sampleRowGroup = 65536

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("o", ".cache/sample/events.parquet", "output file")
	rows := fs.Int("rows", 200_000, "number of rows")
	fs.Parse(args)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := writeEvents(f, *rows); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	// pqarrow's FileWriter.Close closes the file too.
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	st, _ := os.Stat(*out)
	fmt.Printf("wrote %s: %d rows, %d bytes\n", *out, *rows, st.Size())
	return nil
}

func eventsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "tenant_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "event_type", Type: arrow.BinaryTypes.String},
		{Name: "country", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
}

func writeEvents(w *os.File, n int) error {
	schema := eventsSchema()
	props := parquet.NewWriterProperties(
		parquet.WithCreatedBy("pqscan sample generator (arrow-go v18)"),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithStats(true),
		parquet.WithPageIndexEnabled(true),
		parquet.WithDataPageSize(16<<10),
		parquet.WithMaxRowGroupLength(sampleRowGroup),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("event_type", true),
		parquet.WithDictionaryFor("country", true),
		parquet.WithBloomFilterEnabledFor("user_id", true),
		parquet.WithBloomFilterFPPFor("user_id", 0.01),
		parquet.WithBloomFilterNDVFor("user_id", 20000),
	)
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(42, 7))
	mem := memory.DefaultAllocator
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	const tenants = 200
	for done := 0; done < n; {
		m := min(sampleRowGroup, n-done)
		b := array.NewRecordBuilder(mem, schema)
		ts := b.Field(0).(*array.TimestampBuilder)
		tenant := b.Field(1).(*array.Int64Builder)
		user := b.Field(2).(*array.Int64Builder)
		et := b.Field(3).(*array.StringBuilder)
		country := b.Field(4).(*array.StringBuilder)
		value := b.Field(5).(*array.Float64Builder)
		for i := done; i < done+m; i++ {
			t := int64(i) * int64(tenants) / int64(n) // sorted: ~n/200 rows per tenant
			// Within a tenant, time increases; tenants overlap in time like real event streams.
			within := int64(i) - (t*int64(n)+int64(tenants)-1)/int64(tenants)
			ts.Append(arrow.Timestamp(start + within*37_000_000 + rng.Int64N(1_000_000)))
			tenant.Append(t)
			user.Append(t*1000 + rng.Int64N(500))
			typ := eventTypes[rng.IntN(len(eventTypes))]
			et.Append(typ)
			if rng.IntN(50) == 0 {
				country.AppendNull()
			} else {
				country.Append(countries[rng.IntN(len(countries))])
			}
			switch {
			case typ == "purchase":
				value.Append(float64(rng.IntN(50000)) / 100)
			case rng.IntN(10) == 0:
				value.AppendNull()
			default:
				value.Append(0)
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return err
		}
		done += m
	}
	return fw.Close()
}
