package scan

// Report is the scan report: what the engine read and what each level of skipping removed.
// Counter names follow Impala's profile where one exists. It is JSON-encoded for hosts.
type Report struct {
	FileSize int64 `json:"fileSize"`
	// Row groups: total, then after each level.
	RowGroupsTotal      int                `json:"rowGroupsTotal"`
	RowGroupsAfterSlice int                `json:"rowGroupsAfterSlice"`
	RowGroupsAfterStats int                `json:"rowGroupsAfterStats"`
	RowGroupsAfterDict  int                `json:"rowGroupsAfterDictionary"`
	RowGroupsAfterBloom int                `json:"rowGroupsAfterBloom"`
	PagesTotal          int                `json:"pagesTotal"`
	PagesAfterPageIndex int                `json:"pagesAfterPageIndex"`
	PagesAfterLateMat   int                `json:"pagesAfterLateMaterialization"`
	RowsTotal           int64              `json:"rowsTotal"`
	RowsScanned         int64              `json:"rowsScanned"`
	RowsMatched         int64              `json:"rowsMatched"`
	RowsReturned        int64              `json:"rowsReturned"`
	BytesRequested      int64              `json:"bytesRequested"`
	BytesPushed         int64              `json:"bytesPushed"`
	Requests            int                `json:"requests"`
	RoundTrips          int                `json:"roundTrips"`
	ExplainDataBytes    int64              `json:"explainDataBytes,omitempty"`
	ExplainDataRequests int                `json:"explainDataRequests,omitempty"`
	DictionariesLazy    int                `json:"dictionariesLazy"`
	LateMaterialization string             `json:"lateMaterialization,omitempty"`
	Phases              map[string]float64 `json:"phasesMs,omitempty"`
	Log                 []string           `json:"log,omitempty"`
}
