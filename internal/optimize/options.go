package optimize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pqscan/pqscan"
)

// Options configure Rewrite. The zero value rewrites with the defaults noted on each field.
type Options struct {
	// SortBy are top-level leaf columns; rows are sorted by them ascending, nulls last, ties
	// kept in input order, and the order is recorded as the footer's sorting_columns. A key
	// "hilbert(col)" orders a WKB column by the Hilbert curve position of each geometry's
	// bounding-box centre (not recorded in sorting_columns).
	SortBy []string
	// RowGroupRows caps the rows per row group; 0 means 1,048,576 (when RowGroupBytes is 0).
	RowGroupRows int64
	// RowGroupBytes closes a row group once its compressed data pages reach this size
	// (checked every 8,192 rows, like parquet-mr's parquet.block.size; dictionary pages are
	// not counted, see rowGroupWriter); 0 means no byte limit.
	RowGroupBytes int64
	// PageBytes is the data page size limit; 0 means 64 KiB. Ignored when PageRows is set.
	PageBytes int64
	// PageRows cuts a data page every PageRows values (exact for flat columns).
	PageRows int64
	// Codec is snappy, zstd, gzip, brotli, lz4raw or none; "" means zstd.
	Codec string
	// Level is the codec's compression level; 0 means the codec's default.
	Level int
	// Bloom lists explicit bloom filters.
	Bloom []BloomSpec
	// BloomAuto adds bloom filters on columns that look like equality keys: top-level integer
	// (not date/time), string and binary columns whose distinct-count estimate exceeds 10 % of
	// the rows and 1,024, excluding strings averaging over 64 bytes (free text) and the
	// leading sort key (row-group statistics and the page index already prune it).
	BloomAuto bool
	// BloomMode says which chunks of the bloom columns get a filter: BloomAlways ("" too:
	// every chunk), BloomIfNoDict (only chunks that are not fully dictionary-encoded, whose
	// dictionary already proves absence), BloomNever (none: Bloom and BloomAuto are ignored).
	// Impala's PARQUET_BLOOM_FILTER_WRITE.
	BloomMode string
	// Int96 is the convention of the input's legacy INT96 timestamps (Int96Columns): "utc"
	// writes them as instants, "local" as wall-clock times; recorded in the output's key-value
	// metadata (Int96Key). "" writes them as wall-clock times without recording anything.
	Int96 string
	// Int96Columns are the top-level input columns that are INT96 (Int96Columns of a footer).
	Int96Columns []string
	// MemoryCap bounds the Arrow bytes of input held in memory while sorting; beyond it sorted
	// runs are spilled to TempDir and merged. 0 means 512 MiB.
	MemoryCap int64
	// TempDir holds the spilled runs; "" means os.TempDir().
	TempDir string
	// Version goes into created_by as "pqscan optimize (<Version>)"; "" means "devel".
	Version string
	// Progress, when set, is given to every scan of the input (the distinct-count pass for
	// bloom filters, then the copy), so a caller can show a long rewrite advancing (the CLI's
	// progress line); see pqscan.Reader.OnProgress for when it is called.
	Progress func(pqscan.Progress)
}

// BloomSpec is one --bloom col[:ndv[:fpp]]. NDV 0 means the estimate from a pass over the
// column (capped at the row group size); FPP 0 means 0.01.
type BloomSpec struct {
	Column string
	NDV    int64
	FPP    float64
}

const (
	defaultRowGroupRows = 1 << 20
	defaultPageBytes    = 64 << 10
	defaultMemoryCap    = 512 << 20
	defaultFPP          = 0.01
	// rowGroupCheckRows is how often the byte size of a row group is checked.
	rowGroupCheckRows = 8192
)

// ParseSize parses a byte size: a plain number, or a number with a suffix B, KB, MB, GB
// (powers of 1024, as KiB/MiB/GiB also accepted). It reports whether a suffix was given.
func ParseSize(s string) (n int64, hasSuffix bool, err error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult, hasSuffix = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m, true
			break
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, false, fmt.Errorf("%w: size %q", ErrOption, s)
	}
	return v * mult, hasSuffix, nil
}

// ParseCodec maps a codec name to arrow-go's compression.
func ParseCodec(name string) (compress.Compression, error) {
	switch strings.ToLower(name) {
	case "", "zstd":
		return compress.Codecs.Zstd, nil
	case "snappy":
		return compress.Codecs.Snappy, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	case "lz4raw", "lz4_raw":
		return compress.Codecs.Lz4Raw, nil
	case "none", "uncompressed":
		return compress.Codecs.Uncompressed, nil
	}
	return 0, fmt.Errorf("%w: codec %q (want snappy|zstd|gzip|brotli|lz4raw|none)", ErrOption, name)
}

// ParseBloom parses col[:ndv[:fpp]].
func ParseBloom(s string) (BloomSpec, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 || parts[0] == "" {
		return BloomSpec{}, fmt.Errorf("%w: bloom %q (want col[:ndv[:fpp]])", ErrOption, s)
	}
	b := BloomSpec{Column: parts[0]}
	if len(parts) > 1 && parts[1] != "" {
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil || n <= 0 {
			return BloomSpec{}, fmt.Errorf("%w: bloom %q: ndv must be a positive integer", ErrOption, s)
		}
		b.NDV = n
	}
	if len(parts) > 2 {
		f, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || !(f > 0 && f < 1) {
			return BloomSpec{}, fmt.Errorf("%w: bloom %q: fpp must be in (0, 1)", ErrOption, s)
		}
		b.FPP = f
	}
	return b, nil
}
