package format

import (
	"strconv"
	"strings"
)

// Known writer bugs, keyed on FileMetaData.created_by: the table readers keep so that files from
// old writers read correctly and their statistics prune only when they can be trusted. It
// follows arrow-cpp (metadata.cc ApplicationVersion, HasCorrectStatistics; file_reader.cc
// ComputeColumnChunkRange), arrow-go (metadata/app_version.go) and parquet-java
// (CorruptStatistics, ParquetMetadataConverter). Where they differ, the more cautious rule is
// kept: a rule here can only stop statistics from pruning or widen a byte range, never the
// reverse.

// WriterVersion is the application and version parsed from created_by, such as
// "parquet-mr version 1.8.1 (build 4aba4dae7bb0d4edbcf7923ae1339f28fd3f7fcf)".
type WriterVersion struct {
	// App is the lower-cased application name ("parquet-mr", "parquet-cpp-arrow", "impala");
	// empty when created_by is empty.
	App string
	// Major, Minor and Patch are 0 when the version is missing or does not parse, which makes
	// it older than any fixed version, as in arrow-cpp.
	Major, Minor, Patch int
	// Parsed reports whether a major.minor.patch version was found.
	Parsed bool
}

// ParseCreatedBy splits created_by into application and version the way arrow-cpp's
// ApplicationVersion does: "<app> version <major>.<minor>.<patch>[suffix] (build <hash>)", the
// application being everything before "version".
func ParseCreatedBy(createdBy string) WriterVersion {
	s := strings.ToLower(strings.TrimSpace(createdBy))
	var v WriterVersion
	app, ver := s, ""
	if i := strings.Index(s, "version"); i >= 0 {
		app, ver = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len("version"):])
		if j := strings.Index(ver, "("); j >= 0 {
			ver = strings.TrimSpace(ver[:j])
		}
	}
	v.App = app
	parts := strings.SplitN(ver, ".", 3)
	if len(parts) == 3 {
		patch := parts[2]
		if k := strings.IndexFunc(patch, func(r rune) bool { return r < '0' || r > '9' }); k >= 0 {
			patch = patch[:k]
		}
		ma, e1 := strconv.Atoi(parts[0])
		mi, e2 := strconv.Atoi(parts[1])
		pa, e3 := strconv.Atoi(patch)
		if e1 == nil && e2 == nil && e3 == nil && ma >= 0 && mi >= 0 && pa >= 0 {
			v.Major, v.Minor, v.Patch, v.Parsed = ma, mi, pa, true
		}
	}
	return v
}

// Before reports whether v is application app at a version older than major.minor.patch
// (an unparsed version counts as 0.0.0).
func (v WriterVersion) Before(app string, major, minor, patch int) bool {
	if v.App != app {
		return false
	}
	if v.Major != major {
		return v.Major < major
	}
	if v.Minor != minor {
		return v.Minor < minor
	}
	return v.Patch < patch
}

// StatsColumn describes the statistics a reader is about to use, for WriterBug.BadStats.
type StatsColumn struct {
	Physical Type
	// SignedOrder: the column's type-defined sort order is SIGNED (signed integers, floats,
	// dates, times, timestamps), the order old writers used for every type.
	SignedOrder bool
	// Decimal: the column is a DECIMAL.
	Decimal bool
	// Deprecated: the bounds are the deprecated min/max fields, not min_value/max_value.
	Deprecated bool
	// ColumnOrders: the file has column_orders.
	ColumnOrders bool
}

// WriterBug is one known writer bug and what readers do about it.
type WriterBug struct {
	// ID names the bug (a JIRA id where there is one).
	ID string
	// Summary says what the writer did and what the reader does.
	Summary string
	// Affects reports whether a file written by v has the bug.
	Affects func(v WriterVersion) bool
	// BadStats, when set, reports whether the min/max bounds of column c in such a file are
	// unusable for pruning.
	BadStats func(c StatsColumn) bool
	// Corrupt: where BadStats holds, the whole Statistics struct (null counts included) is
	// untrusted, not only the order of its bounds.
	Corrupt bool
	// PadChunk: column chunk ranges are padded by up to MaxDictHeaderPadding bytes.
	PadChunk bool
	// AllWriters: the row is a rule for every writer, not a bug of one (Bugs leaves it out).
	AllWriters bool
}

// MaxDictHeaderPadding is how many bytes a column chunk range is extended by for PARQUET-816
// (arrow-cpp's kMaxDictHeaderSize).
const MaxDictHeaderPadding = 100

func isBytes(t Type) bool { return t == ByteArray || t == FixedLenByteArray }

// WriterBugs is the table. Each row has a table test in writerversion_test.go.
var WriterBugs = []WriterBug{
	{
		ID: "PARQUET-251",
		Summary: "parquet-mr before 1.8.0 wrote corrupt binary statistics (and files without created_by may come " +
			"from it, PARQUET-297): BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY statistics are not used",
		Affects: func(v WriterVersion) bool {
			return v.App == "" || v.Before("parquet-mr", 1, 8, 0)
		},
		BadStats: func(c StatsColumn) bool { return isBytes(c.Physical) },
		Corrupt:  true,
	},
	{
		ID: "PARQUET-816",
		Summary: "parquet-mr before 1.2.9 left the dictionary page header out of total_compressed_size: " +
			"column chunk ranges are padded by up to 100 bytes",
		Affects:  func(v WriterVersion) bool { return v.Before("parquet-mr", 1, 2, 9) },
		PadChunk: true,
	},
	{
		ID: "PARQUET-686",
		Summary: "parquet-mr before 1.10.0 and parquet-cpp before 1.3.0 ordered every statistic as signed: " +
			"only statistics of signed-order columns are used",
		Affects: func(v WriterVersion) bool {
			return v.Before("parquet-mr", 1, 10, 0) || v.Before("parquet-cpp", 1, 3, 0)
		},
		BadStats: func(c StatsColumn) bool { return !c.SignedOrder },
	},
	{
		ID: "PARQUET-1065",
		Summary: "the deprecated min/max fields have an undefined (in practice signed) order in every writer: " +
			"they are used only for signed-order columns",
		Affects:    func(WriterVersion) bool { return true },
		BadStats:   func(c StatsColumn) bool { return c.Deprecated && !c.SignedOrder },
		AllWriters: true,
	},
	{
		ID: "PARQUET-1655",
		Summary: "parquet-cpp, and parquet-cpp-arrow before 4.0.0, compared decimals byte-wise unsigned " +
			"for min/max: decimal statistics are not used",
		Affects: func(v WriterVersion) bool {
			return v.App == "parquet-cpp" || v.Before("parquet-cpp-arrow", 4, 0, 0)
		},
		BadStats: func(c StatsColumn) bool { return c.Decimal },
	},
	{
		ID: "impala-signed-order",
		// No Impala JIRA is cited: this row is a cautious default, not a reproduced bug. Impala
		// files without column_orders carry statistics whose order for unsigned and byte-array
		// columns the writer never declared.
		Summary: "Impala files without column_orders do not declare the order of their statistics: " +
			"there, only statistics of signed-order columns are used",
		Affects:  func(v WriterVersion) bool { return v.App == "impala" },
		BadStats: func(c StatsColumn) bool { return !c.ColumnOrders && !c.SignedOrder },
	},
}

// Bugs lists the rows of WriterBugs specific to some writers that affect v.
func (v WriterVersion) Bugs() []WriterBug {
	var out []WriterBug
	for _, b := range WriterBugs {
		if !b.AllWriters && b.Affects(v) {
			out = append(out, b)
		}
	}
	return out
}

// StatsUsable reports whether the min/max bounds of column c written by v may prune; when
// not, it returns the ID of the bug that forbids it (the first in table order).
func (v WriterVersion) StatsUsable(c StatsColumn) (bool, string) {
	if b := v.statsBug(c, false); b != nil {
		return false, b.ID
	}
	return true, ""
}

// StatsCorrupt reports whether the whole Statistics of column c written by v, null counts
// included, are untrusted, and the ID of the bug that says so.
func (v WriterVersion) StatsCorrupt(c StatsColumn) (bool, string) {
	if b := v.statsBug(c, true); b != nil {
		return true, b.ID
	}
	return false, ""
}

func (v WriterVersion) statsBug(c StatsColumn, corruptOnly bool) *WriterBug {
	for i := range WriterBugs {
		b := &WriterBugs[i]
		if b.BadStats != nil && (b.Corrupt || !corruptOnly) && b.Affects(v) && b.BadStats(c) {
			return b
		}
	}
	return nil
}

// PadChunks reports whether column chunk ranges of files written by v need padding.
func (v WriterVersion) PadChunks() bool {
	for _, b := range WriterBugs {
		if b.PadChunk && b.Affects(v) {
			return true
		}
	}
	return false
}
