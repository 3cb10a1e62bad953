package scan

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/protocol"
)

// Options configure a scan. The JSON form is the wire format hosts send to the wasm module.
type Options struct {
	// FileSize is the Parquet file's size in bytes; 0 means unknown, in which case the first
	// NeedRanges asks for a suffix (Range.Off = -TailSize, Len = TailSize) and the host must
	// report the real size with SetFileSize before pushing.
	FileSize int64 `json:"fileSize,omitempty"`
	// Columns are top-level names or dotted paths to nested fields; empty means all columns.
	Columns []string `json:"columns,omitempty"`
	// Where is a SQL WHERE subset (see package prune); empty means no filter.
	Where string `json:"where,omitempty"`
	// Limit caps the number of rows returned (after Offset); 0 means no limit.
	Limit int64 `json:"limit,omitempty"`
	// Offset skips that many matching rows first.
	Offset int64 `json:"offset,omitempty"`
	// BatchRows is the maximum number of rows per emitted batch; 0 means 65536.
	BatchRows int `json:"batchRows,omitempty"`
	// MemoryCap bounds the bytes the engine may allocate for one page, dictionary or batch;
	// 0 means 256 MiB.
	MemoryCap int64 `json:"memoryCap,omitempty"`
	// TailSize is the size of the first tail read; 0 means 64 KiB. It usually holds the whole
	// footer and, for small and medium files, the page index writers put before it. A larger
	// tail saves the index round only when the whole page index fits; for large files it is
	// mostly the column index of wide string columns that the query never needs (measured on
	// the 4M-row events file: a 512 KiB tail made "one tenant, one hour" fetch 1.64× the
	// page-level lower bound, 64 KiB 1.15×, with the same round trips; bench/README.md).
	TailSize int64 `json:"tailSize,omitempty"`
	// DictionaryArrays emits dictionary-encoded string columns as Arrow dictionary arrays.
	DictionaryArrays bool `json:"dictionaryArrays,omitempty"`
	// RoundTripBytes is the cost of one extra round trip expressed in bytes, used by the
	// late-materialization and coalescing cost rules; 0 means 256 KiB.
	RoundTripBytes int64 `json:"roundTripBytes,omitempty"`
	// MaxGap merges requested ranges separated by at most this many bytes into one request;
	// 0 means 8 KiB. Pages of one column chunk are contiguous, so a small gap already merges
	// the selected pages of a column; a larger gap trades bytes for fewer requests.
	MaxGap int64 `json:"maxGap,omitempty"`
	// Count makes the scan answer SELECT count(*) ... WHERE Where instead of returning rows:
	// one batch of one row with an int64 column "count" (Offset and Limit apply to the rows
	// counted, Columns are ignored). Row groups and pages whose statistics prove that every
	// row matches are counted from their row counts (footer, offset index) and those that
	// prove none are skipped, so only undecided ones read the predicate columns; without a
	// predicate the footer is all it reads. Report.RowsCountedFromMetadata tells how many.
	Count bool `json:"count,omitempty"`
	// MinMax, when not empty, makes the scan answer SELECT min(c), max(c) ... WHERE Where
	// for that flat column instead of returning rows: one batch of one row with columns
	// "min" and "max" of the column's type (nulls when no row has a value; NaN sorts above
	// every float, as in DuckDB). Row groups that wholly match and whose statistics are
	// exact and trusted give their bounds from the footer; the others are read (minmax.go).
	// Report.RowGroupsFromMetadata and RowsCountedFromMetadata tell how many.
	MinMax string `json:"minMax,omitempty"`
	// RowIndex, when not empty, adds an int64 column of that name, first, holding each
	// row's position in the file (0-based, counting every row of every row group), as
	// Polars' with_row_index; it stays right whatever skipping removed. A predicate on it
	// prunes like a slice: row groups and pages that hold none of the rows it selects are
	// never read. The name must not be a column of the file.
	RowIndex string `json:"rowIndex,omitempty"`
	// OrderBy sorts the result: "col [ASC|DESC] [NULLS FIRST|LAST][, col2 ...]" over
	// top-level primitive columns, in DuckDB's order (nulls last by default, NaN above every
	// number, ties by position in the file). With a limit it is a top-k: the key column's
	// row groups and pages are visited best bound first and those that cannot beat the k-th
	// row so far are never fetched (topk.go); without one every matching row is sorted in
	// memory, within MemoryCap (so are the keys of offset+limit rows). DictionaryArrays is
	// ignored: sorted rows mix row groups, whose dictionaries differ.
	OrderBy string `json:"orderBy,omitempty"`
	// Explain stops after planning (footer, indexes, bloom filters, dictionaries): the scan
	// ends with Done and no batch, and Report tells what a real scan would skip and fetch.
	Explain bool `json:"explain,omitempty"`
	// NoPrune disables every skipping level except limit/offset (for differential testing).
	NoPrune bool `json:"noPrune,omitempty"`
	// LateMaterializationThreshold is the least number of consecutive filtered-out rows
	// inside a page whose values are skipped rather than decoded, for the output columns and
	// for a predicate column evaluated after another (Impala's
	// parquet_late_materialization_threshold); shorter gaps are decoded with their
	// neighbours, which costs less than cutting a copy or gather up. 0 means 20; a negative
	// value decodes every value of a page that holds a selected row.
	LateMaterializationThreshold int `json:"lateMaterializationThreshold,omitempty"`
	// Disable switches single levels off, for debugging and measuring what each one saves
	// (Impala keeps one switch per level for the same reason): any of "statistics",
	// "dictionary", "bloom", "pageIndex" (the column index; offset indexes still locate
	// pages), "lateMaterialization". Empty: every level on. The report lists them.
	Disable []string `json:"disable,omitempty"`

	// NoVerifyCRC reads pages without checking their CRCs against their bytes. By default a
	// stored CRC is checked and a mismatch is an error (ErrCorrupt); a CRC of 0 is taken as
	// not written, as writers that reserve the field without computing it (Parquet.jl) leave
	// it. Report.PagesCRCUnverified counts the pages whose CRC went unchecked either way.
	NoVerifyCRC bool `json:"noVerifyCrc,omitempty"`

	// VariantJSON returns every VARIANT column (also nested) as its JSON text, utf8 with
	// the arrow.json extension, instead of the canonical arrow.parquet.variant struct of
	// metadata and value binaries: what a reader without a Variant decoder (apache-arrow
	// in JavaScript, a dashboard) can use at once.
	VariantJSON bool `json:"variantJSON,omitempty"`

	// Host fields: set by the driver, not by users.

	// Metadata makes the engine hand the decoded footer to the host as a Metadata step, once,
	// right after decoding it (hosts that open a file stop there).
	Metadata bool `json:"metadata,omitempty"`
	// FileKey names the file's content (URL or path, validator, size) for the engine's footer
	// cache: a later session with the same key and size starts from the decoded footer and
	// the tail bytes kept with it, without a tail request or a second decode. Empty: no
	// caching. A key must change when the file's bytes do.
	FileKey string `json:"fileKey,omitempty"`
	// RowsFrom and RowsTo make the session one unit of a scan split across cores: it reads
	// only the file's rows [RowsFrom, RowsTo) (RowsTo 0: to the end), as if the others were
	// not in the file; Offset and Limit apply to the unit's rows (units.go).
	RowsFrom int64 `json:"rowsFrom,omitempty"`
	RowsTo   int64 `json:"rowsTo,omitempty"`
	// PlanUnits, when positive, is the size in bytes of the units a host wants the scan cut
	// into: the scan stops after the index round, as Explain does, having also fetched the
	// offset index of the columns read in every row group large enough to be cut, and
	// Scanner.Units returns the units (units.go).
	PlanUnits int64 `json:"planUnits,omitempty"`
}

// Levels that Options.Disable can switch off.
const (
	LevelStatistics          = "statistics"
	LevelDictionary          = "dictionary"
	LevelBloom               = "bloom"
	LevelPageIndex           = "pageIndex"
	LevelLateMaterialization = "lateMaterialization"
)

// levels are the names Options.Disable accepts.
var levels = []string{LevelStatistics, LevelDictionary, LevelBloom, LevelPageIndex, LevelLateMaterialization}

// off reports whether level is switched off (by NoPrune or Disable).
func (o *Options) off(level string) bool {
	if o.NoPrune {
		return level != LevelLateMaterialization
	}
	for _, l := range o.Disable {
		if l == level {
			return true
		}
	}
	return false
}

// checkDisable rejects a level name the engine does not know: a misspelt switch must not
// silently leave the level on.
func (o *Options) checkDisable() error {
	for _, l := range o.Disable {
		if !slices.Contains(levels, l) {
			return errf.Errorf("%w: unknown level %q in disable (want one of [%s])", ErrOptions, l, strings.Join(levels, " "))
		}
	}
	return nil
}

const (
	defaultBatchRows      = 65536
	defaultMemoryCap      = protocol.DefaultMemoryCap
	defaultTailSize       = 64 << 10
	minTailSize           = 8
	defaultRoundTripBytes = 256 << 10
	defaultMaxGap         = 8 << 10
)

// DefaultOptions returns the options a scan runs with when none are set: the zero Options,
// normalized. jsbridge/src/options.js and jsbridge/index.d.ts document the same defaults
// (options_jsbridge_test.go checks them).
func DefaultOptions() Options {
	var o Options
	o.normalize()
	return o
}

func (o *Options) normalize() {
	if o.BatchRows <= 0 {
		o.BatchRows = defaultBatchRows
	}
	if o.MemoryCap <= 0 {
		o.MemoryCap = defaultMemoryCap
	}
	switch {
	case o.TailSize <= 0:
		o.TailSize = defaultTailSize
	case o.TailSize < minTailSize:
		o.TailSize = minTailSize // the footer's length and magic: the least a tail read can use
	}
	if o.MaxGap <= 0 {
		o.MaxGap = defaultMaxGap
	}
	if o.RoundTripBytes <= 0 {
		o.RoundTripBytes = defaultRoundTripBytes
	}
	if o.LateMaterializationThreshold == 0 {
		o.LateMaterializationThreshold = decode.DefaultSkipThreshold
	}
}
