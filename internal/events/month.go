package events

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Month selects a partitioned copy of the table: the rows of Config (its Layout is ignored)
// split into one Hive folder per day of event_time, event_date=YYYY-MM-DD/part-N.parquet,
// Parts files per day (row i goes to part i mod Parts: rows are i.i.d., so every part holds a
// random quarter of the day), each file sorted by (tenant_id, event_time) with the sorted
// layout's writer properties (zstd, page index, bloom filter on user_id sized for the file,
// sorting_columns). Beside it, the same rows as one file sorted the same way (the single-file
// baseline; its bytes are Generate's for Config with the sorted layout).
type Month struct {
	Config
	Parts int // files per day; 0 means 4
}

func (m Month) parts() int {
	if m.Parts <= 0 {
		return 4
	}
	return m.Parts
}

// MonthDir is the folder of the month dataset inside a Month's cache root (MonthCached).
const MonthDir = "month"

// SingleFile is the name of the single-file baseline inside a Month's cache root.
const SingleFile = "single.parquet"

// MonthName is the cache root name of m: it carries Version, the rows, the parts and the seed
// and tenants (as FileName does).
func MonthName(m Month) string {
	cfg := m.Config
	cfg.Layout = Sorted
	name := fmt.Sprintf("month-v%d-%d-p%d", Version, cfg.Rows, m.parts())
	if cfg.Seed != 0 {
		name += fmt.Sprintf("-s%d", cfg.Seed)
	}
	if cfg.Tenants != 0 || cfg.FirstTenantID != 0 {
		n, first := cfg.tenants()
		name += fmt.Sprintf("-t%d-%d", n, first)
	}
	return name
}

// DayDir is the Hive folder name of a day.
func DayDir(day time.Time) string { return "event_date=" + day.Format("2006-01-02") }

// MonthCached returns the cache root of m in dir (holding MonthDir/ and SingleFile),
// generating it first if it does not exist. The root is written under a temporary name and
// renamed, so a crash never leaves a partial dataset under the final name.
func MonthCached(dir string, m Month) (string, error) {
	root := filepath.Join(dir, MonthName(m))
	if _, err := os.Stat(root); err == nil {
		return root, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".gen-month-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := GenerateMonth(tmp, m); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	return root, os.Rename(tmp, root)
}

// GenerateMonth writes m into root: root/MonthDir/event_date=…/part-N.parquet and
// root/SingleFile. A (day, part) without rows gets no file.
func GenerateMonth(root string, m Month) error {
	cfg := m.Config
	cfg.Layout = Sorted
	cfg, t, seed, err := newTable(cfg)
	if err != nil {
		return err
	}
	parts := m.parts()
	days := int(End.Sub(Start) / (24 * time.Hour))
	// Bucket the rows by (day, part), in generation order, then sort each bucket.
	buckets := make([][]int32, days*parts)
	start, dayUS := Start.UnixMicro(), (24 * time.Hour).Microseconds()
	for i := range cfg.Rows {
		d := int((t.time[i] - start) / dayUS)
		b := d*parts + i%parts
		buckets[b] = append(buckets[b], int32(i))
	}
	for b, order := range buckets {
		if len(order) == 0 {
			continue
		}
		t.sortByTenant(order)
		day := Start.AddDate(0, 0, b/parts)
		p := filepath.Join(root, MonthDir, DayDir(day), fmt.Sprintf("part-%d.parquet", b%parts))
		fc := cfg
		fc.Rows = len(order)
		if err := writeFile(p, func(f *bufio.Writer) error {
			return writeRows(f, writerProps(fc), t, seed, order)
		}); err != nil {
			return err
		}
		buckets[b] = nil
	}
	order := make([]int32, cfg.Rows)
	for i := range order {
		order[i] = int32(i)
	}
	t.sortByTenant(order)
	return writeFile(filepath.Join(root, SingleFile), func(f *bufio.Writer) error {
		return writeRows(f, writerProps(cfg), t, seed, order)
	})
}

// writeFile creates p (and its folder) and writes it through a buffer.
func writeFile(p string, write func(*bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
