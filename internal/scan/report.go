package scan

// Report is the scan report: what the engine read and what each level of skipping removed.
// Counter names follow Impala's profile where one exists. It is JSON-encoded for hosts.
type Report struct {
	FileSize int64 `json:"fileSize"`
	// Row groups: total, then after each level.
	RowGroupsTotal      int   `json:"rowGroupsTotal"`
	RowGroupsAfterSlice int   `json:"rowGroupsAfterSlice"`
	RowGroupsAfterStats int   `json:"rowGroupsAfterStats"`
	RowGroupsAfterDict  int   `json:"rowGroupsAfterDictionary"`
	RowGroupsAfterBloom int   `json:"rowGroupsAfterBloom"`
	PagesTotal          int   `json:"pagesTotal"`
	PagesAfterPageIndex int   `json:"pagesAfterPageIndex"`
	PagesAfterLateMat   int   `json:"pagesAfterLateMaterialization"`
	RowsTotal           int64 `json:"rowsTotal"`
	RowsScanned         int64 `json:"rowsScanned"`
	RowsMatched         int64 `json:"rowsMatched"`
	RowsReturned        int64 `json:"rowsReturned"`
	// RowsCountedFromMetadata: with Options.Count, the matching rows counted from row counts
	// (row groups and pages whose statistics prove every row matches), without reading data.
	RowsCountedFromMetadata int64 `json:"rowsCountedFromMetadata,omitempty"`
	// RowGroupsFromMetadata: with Options.MinMax, the row groups whose min and max came from
	// their statistics (their rows are in RowsCountedFromMetadata), without reading data.
	RowGroupsFromMetadata int    `json:"rowGroupsFromMetadata,omitempty"`
	BytesRequested        int64  `json:"bytesRequested"`
	BytesPushed           int64  `json:"bytesPushed"`
	Requests              int    `json:"requests"`
	RoundTrips            int    `json:"roundTrips"`
	ExplainDataBytes      int64  `json:"explainDataBytes,omitempty"`
	ExplainDataRequests   int    `json:"explainDataRequests,omitempty"`
	DictionariesLazy      int    `json:"dictionariesLazy"`
	LateMaterialization   string `json:"lateMaterialization,omitempty"`
	// LevelsOff are the levels Options.Disable switched off.
	LevelsOff []string `json:"levelsOff,omitempty"`
	// RowGroups says, per row group, which level skipped it (empty: read) and how many of
	// its pages were read; for the plan picture in the demo app.
	RowGroups []RowGroupReport `json:"rowGroups,omitempty"`
	// Files: a table scan's files (package tablescan): total, after their partition values,
	// after their table-level statistics (Delta add stats), read (footer and data), and one
	// line each.
	FilesTotal           int                `json:"filesTotal,omitempty"`
	FilesAfterPartitions int                `json:"filesAfterPartitions,omitempty"`
	FilesAfterStats      int                `json:"filesAfterStats,omitempty"`
	FilesRead            int                `json:"filesRead,omitempty"`
	Files                []FileReport       `json:"files,omitempty"`
	Phases               map[string]float64 `json:"phasesMs,omitempty"`
	Log                  []string           `json:"log,omitempty"`

	// FilesNoResidual counts the files of a table scan whose scan evaluated no filter
	// although the table scan has one: partition values, file statistics or a column the
	// file lacks decided it for every row (Polars' no_residual_predicate).
	FilesNoResidual int `json:"filesNoResidual,omitempty"`
	// RowGroupsAllMatch counts the row groups read whose statistics proved every row
	// matches: the exact filter was not evaluated on them.
	RowGroupsAllMatch int `json:"rowGroupsAllMatch,omitempty"`
	// RowsAllMatch counts the rows of other row groups whose pages' statistics (column
	// index) proved every row matches: the exact filter skipped them.
	RowsAllMatch int64 `json:"rowsAllMatch,omitempty"`
	// TopKSkipped counts the units (key column pages, or row groups without a column
	// index) of a top-k scan (Options.OrderBy with a limit) that the runtime bound skipped:
	// their best possible key could not beat the k-th row found so far.
	TopKSkipped int `json:"topkSkipped,omitempty"`
	// RuntimeFilters counts the conjuncts a running scan accepted (Tighten);
	// RowGroupsSkippedRuntime and RowsSkippedRuntime what they excluded before it was
	// requested (row groups or row-group parts dropped whole; candidate rows removed in all).
	RuntimeFilters          int   `json:"runtimeFilters,omitempty"`
	RowGroupsSkippedRuntime int   `json:"rowGroupsSkippedRuntime,omitempty"`
	RowsSkippedRuntime      int64 `json:"rowsSkippedRuntime,omitempty"`
	// ValuesSkipped counts the non-null values that pages holding selected rows did not
	// materialize: runs of at least Options.LateMaterializationThreshold filtered-out rows,
	// in output columns and in predicate columns evaluated after another.
	ValuesSkipped int64 `json:"valuesSkipped,omitempty"`
	// PagesCRCUnverified counts the data and dictionary pages decoded whose header carries a
	// CRC that was not checked: a CRC of 0 (a writer's placeholder, Parquet.jl's), or every
	// CRC with Options.NoVerifyCRC. A dictionary read for pruning and again for the rows
	// counts twice. Pages without a CRC are not counted: there is nothing to check.
	PagesCRCUnverified int `json:"pagesCrcUnverified,omitempty"`
	// Units and Threads: a scan split across cores (units.go) ran Units units on Threads
	// threads (goroutines, instances or Workers); both 0 for a scan run as one session.
	Units   int `json:"units,omitempty"`
	Threads int `json:"threads,omitempty"`
	// MetadataFromCache names what of the scan's metadata a host took from its persistent
	// metadata store ("tail": the footer and page indexes; "plan": the data ranges a scan
	// with the same options read, fetched at once before the engine asked) instead of
	// requesting it or waiting for the engine's rounds;
	// RequestsSaved and RoundTripsSaved are what fetching it cost the reader that stored it.
	// MetadataCacheError is the store's last error (a full disk, a quota), which never fails
	// a scan. Hosts set these; the engine does not.
	MetadataFromCache  []string `json:"metadataFromCache,omitempty"`
	RequestsSaved      int64    `json:"requestsSaved,omitempty"`
	RoundTripsSaved    int64    `json:"roundTripsSaved,omitempty"`
	MetadataCacheError string   `json:"metadataCacheError,omitempty"`
}

// RowGroupReport is one row group's line in the report.
type RowGroupReport struct {
	Index int   `json:"index"`
	Rows  int64 `json:"rows"`
	// SkippedBy is "slice", "statistics", "bloom", "dictionary", "pageIndex" or "filter"
	// (no row matched), "metadata" (a count took every row from the statistics) or
	// "runtime" (a runtime filter, Tighten, excluded it before it was read); empty
	// when rows were returned.
	SkippedBy string `json:"skippedBy,omitempty"`
	// PagesTotal and PagesRead count data pages of the columns read, when the offset index
	// tells; 0 otherwise.
	PagesTotal int `json:"pagesTotal"`
	PagesRead  int `json:"pagesRead"`
	// RowsMatched counts the rows that satisfied the filter (or were selected).
	RowsMatched int64 `json:"rowsMatched"`
	// PredicateOrder: with several AND-ed predicate columns, the order in which they were
	// evaluated (each entry the columns of one conjunct group, joined by ","): a later one
	// reads only the rows that passed the earlier ones (filter.go, "Predicate order").
	PredicateOrder []string `json:"predicateOrder,omitempty"`
	// Columns: per column read that has an offset index, what became of each of its pages
	// (row groups the statistics, bloom or dictionary level skipped have none: no page of
	// theirs was considered).
	Columns []ColumnPages `json:"columns,omitempty"`
}

// ColumnPages is one column's pages in one row group: Pages has one letter per data page, in
// file order: PageRead, PagePageIndex, PageLateMat, PageSlice or PagePlanned (pages.go).
type ColumnPages struct {
	Column string `json:"column"` // the leaf's dotted path
	Pages  string `json:"pages"`
}

// FileReport is one file's line in a table scan's report.
type FileReport struct {
	Path string `json:"path"`
	// SkippedBy is "partition" (decided before the footer), "file statistics" (a table log's),
	// "schema" (the predicate compares a column the file lacks: no row can match),
	// "statistics", "bloom", "dictionary" or "filter" (no row matched), "metadata" (a count or
	// min/max answered from the table log), "top-k" (an ORDER BY's bound: no row of it could
	// make the top rows); empty when rows were returned or the scan stopped before the file.
	SkippedBy      string `json:"skippedBy,omitempty"`
	Rows           int64  `json:"rows"` // from the footer, when it was read
	BytesRequested int64  `json:"bytesRequested"`
	RowsReturned   int64  `json:"rowsReturned"`
	// RowGroups are the file's row-group lines (with their pages) once its scan ended, so a
	// host can draw files, then row groups, then pages; a table keeps them for its first
	// MaxTableRowGroups row groups only.
	RowGroups []RowGroupReport `json:"rowGroups,omitempty"`
}

// MaxTableRowGroups bounds the row-group lines a table scan's report keeps across its files.
const MaxTableRowGroups = 10000
