package protocol

// DatasetMetadata says what of a dataset's metadata its open took from the host's persistent
// metadata store instead of asking the server: the Go host's Dataset.Metadata and the JS
// bridge's openDataset metadata use these names (jsbridge_test.go checks the bridge spells
// each). A dataset's listing and a table's "latest" pointers (_last_checkpoint, a version
// hint) are never taken from the store: they are always asked again.
type DatasetMetadata struct {
	// Delta is a Delta table's snapshot as read.
	Delta *DeltaSnapshot `json:"delta,omitempty"`
	// TailsFromCache counts the files whose tail (footer and page indexes as fetched) came
	// from the store: a listed file of the listing's size and ETag, or a table snapshot's data
	// file (immutable by the table's protocol) of the size its log gives. An Iceberg table
	// opened by the Go host finds its files per scan: the count grows with its scans.
	TailsFromCache int `json:"tailsFromCache,omitempty"`
	// ObjectsFromCache are the table log objects read from the store (Iceberg metadata files
	// named by a UUID, manifest lists, manifests: immutable by their names), by path as the
	// table's session asked them (relative to the table root, or absolute).
	ObjectsFromCache []string `json:"objectsFromCache,omitempty"`
	// RequestsSaved counts the requests those cost the reader that stored them: one per
	// object, and a tail's as recorded with it.
	RequestsSaved int64 `json:"requestsSaved,omitempty"`
}

// DeltaSnapshot is a Delta table's snapshot as an open read it: its version and whether its log
// was resumed from the replayed state the store held (of version ResumedFrom: only the
// CommitsRead commits after it were replayed; none when the table had no new commit).
type DeltaSnapshot struct {
	Version     int64  `json:"version"`
	Resumed     bool   `json:"resumed,omitempty"`
	ResumedFrom *int64 `json:"resumedFrom,omitempty"`
	CommitsRead int64  `json:"commitsRead,omitempty"`
}
