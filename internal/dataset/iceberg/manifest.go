package iceberg

import (
	"errors"
	"strings"

	"github.com/pqscan/pqscan/internal/avro"
	"github.com/pqscan/pqscan/internal/errf"
)

// Manifest lists and manifests (spec § Manifests, § Manifest Lists), read from the generic
// values of internal/avro by field name: writers differ in field order, record names and
// nullability, and v1 files lack the v2 fields (content, sequence numbers).

// Content kinds of a manifest (manifest list "content") and of a file (data_file "content").
const (
	ContentData       = 0
	ContentPosDeletes = 1
	ContentEqDeletes  = 2
	contentDeletes    = 1 // a manifest list entry's content: a delete manifest
)

// Entry status values (manifest_entry "status").
const (
	StatusExisting = 0
	StatusAdded    = 1
	StatusDeleted  = 2
)

// ManifestFile is one entry of a manifest list.
type ManifestFile struct {
	Path     string
	Length   int64
	SpecID   int64
	Deletes  bool  // content 1: a manifest of delete files
	Sequence int64 // the manifest's sequence number (0 in v1)
	// Summaries are its partition fields' summaries, in its spec's field order.
	Summaries []FieldSummary
}

// DataFile is one live file of a manifest (status ADDED or EXISTING).
type DataFile struct {
	Content   int64 // ContentData, ContentPosDeletes, ContentEqDeletes
	Path      string
	Format    string // PARQUET, AVRO, ORC, PUFFIN
	Records   int64
	Size      int64
	Partition map[string]any // by partition field name, values as internal/avro decodes them
	// Sequence is the file's data sequence number (inherited from its manifest when null).
	Sequence int64
	// Referenced is the data file a position delete or deletion vector applies to, when
	// the writer recorded it.
	Referenced string
	Metrics    Metrics
	SpecID     int64 // the partition spec of Partition (its manifest's)
	// Delete files only (deletes.go): a deletion vector's blob in its Puffin file (-1:
	// none), the field ids an equality delete matches on.
	ContentOffset, ContentSize int64
	EqualityIDs                []int64
}

func record(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// num reads an int or long field; absent or null gives def.
func num(r map[string]any, name string, def int64) int64 {
	if v, ok := r[name].(int64); ok {
		return v
	}
	return def
}

func str(r map[string]any, name string) string {
	s, _ := r[name].(string)
	return s
}

// maxAvroBytes caps what one manifest list or manifest may decode to.
const maxAvroBytes = 256 << 20

// avroError classifies an Avro file's failure as the table's: a codec the reader lacks is an
// unsupported feature, anything else (truncated, a bad schema, a hostile length) malformed
// metadata. The Avro error stays in the chain.
func avroError(what string, err error) error {
	kind := ErrMalformed
	if errors.Is(err, avro.ErrUnsupported) {
		kind = ErrUnsupportedFeature
	}
	return errf.Errorf("%w: %s: %w", kind, what, err)
}

// ParseManifestList reads a manifest list file.
func ParseManifestList(name string, b []byte) ([]ManifestFile, error) {
	f, err := avro.Decode(b, maxAvroBytes)
	if err != nil {
		return nil, avroError("manifest list "+name, err)
	}
	out := make([]ManifestFile, 0, len(f.Values))
	for i, v := range f.Values {
		r, ok := record(v)
		p := str(r, "manifest_path")
		if !ok || p == "" {
			return nil, errf.Errorf("%w: manifest list %s: entry %d has no manifest_path", ErrMalformed, name, i)
		}
		out = append(out, ManifestFile{Path: p, Length: num(r, "manifest_length", 0), SpecID: num(r, "partition_spec_id", 0),
			Deletes: num(r, "content", 0) == contentDeletes, Sequence: num(r, "sequence_number", 0),
			Summaries: parseSummaries(r["partitions"])})
	}
	return out, nil
}

// ParseManifest reads a manifest's live entries (status DELETED dropped). m is its manifest
// list entry, whose sequence number ADDED entries inherit when theirs is null.
func ParseManifest(m ManifestFile, b []byte) ([]DataFile, error) {
	f, err := avro.Decode(b, maxAvroBytes)
	if err != nil {
		return nil, avroError("manifest "+m.Path, err)
	}
	var out []DataFile
	for i, v := range f.Values {
		e, ok := record(v)
		df, ok2 := record(e["data_file"])
		if !ok || !ok2 {
			return nil, errf.Errorf("%w: manifest %s: entry %d has no data_file", ErrMalformed, m.Path, i)
		}
		status := num(e, "status", -1)
		switch status {
		case StatusDeleted:
			continue
		case StatusAdded, StatusExisting:
		default:
			return nil, errf.Errorf("%w: manifest %s: entry %d has status %d", ErrMalformed, m.Path, i, status)
		}
		d := DataFile{Content: num(df, "content", ContentData), Path: str(df, "file_path"), Format: strings.ToUpper(str(df, "file_format")),
			Records: num(df, "record_count", -1), Size: num(df, "file_size_in_bytes", -1),
			Sequence: num(e, "sequence_number", m.Sequence), Referenced: str(df, "referenced_data_file"), SpecID: m.SpecID}
		d.Partition, _ = record(df["partition"])
		d.Metrics = parseMetrics(df)
		d.readDeleteFields(df)
		if d.Path == "" || d.Size < 0 || d.Records < 0 {
			return nil, errf.Errorf("%w: manifest %s: entry %d lacks file_path, file_size_in_bytes or record_count", ErrMalformed, m.Path, i)
		}
		if m.Deletes && d.Content == ContentData {
			d.Content = ContentPosDeletes // a v2 delete manifest whose entries omit content
		}
		out = append(out, d)
	}
	return out, nil
}
