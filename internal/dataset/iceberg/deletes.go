package iceberg

import (
	"github.com/pqscan/pqscan/internal/avro"
	"github.com/pqscan/pqscan/internal/errf"
)

// Which delete files apply to which data file (spec § Scan Planning, § Delete Formats). The
// plan is pure: the session reads what it names and turns it into each data file's deleted
// rows.

// filePathFieldID is the field id of a position delete file's file_path column (spec
// § Position Delete Files), whose bounds in the manifest say which data files it can hold.
const filePathFieldID = 2147483546

// Applied are the delete files that apply to one data file, as indexes into the delete files
// given to PlanDeletes.
type Applied struct {
	DV        int   // the deletion vector (-1: none); when set, Positions is empty
	Positions []int // position delete files (Parquet), partition- or file-scoped
	Equality  []int // equality delete files
}

// readDeleteFields reads what planning and reading a delete file need from its data_file
// record: the equality field ids and a deletion vector's blob.
func (d *DataFile) readDeleteFields(df map[string]any) {
	d.ContentOffset, d.ContentSize = num(df, "content_offset", -1), num(df, "content_size_in_bytes", -1)
	if ids, ok := df["equality_ids"].([]any); ok {
		for _, v := range ids {
			if id, ok := v.(int64); ok {
				d.EqualityIDs = append(d.EqualityIDs, id)
			}
		}
	}
}

// fileScoped reports whether a position delete file names one data file only: its
// referenced_data_file, or equal bounds on file_path.
func (d *DataFile) fileScoped() (string, bool) {
	if d.Referenced != "" {
		return d.Referenced, true
	}
	if lo, ok := d.Metrics.Lower[filePathFieldID]; ok && string(lo) == string(d.Metrics.Upper[filePathFieldID]) {
		return string(lo), true
	}
	return "", false
}

func samePartition(a, b *DataFile) bool {
	if a.SpecID != b.SpecID {
		return false
	}
	if len(a.Partition) == 0 && len(b.Partition) == 0 {
		return true
	}
	return avro.EqualMaps(a.Partition, b.Partition)
}

// positionApplies says whether a position delete file or deletion vector del applies to d: d's
// data sequence number is at most del's; del names d (file-scoped), or lies in d's partition
// and its file_path bounds admit d's path (the original string of the manifests).
func positionApplies(del, d *DataFile) bool {
	if d.Sequence > del.Sequence {
		return false
	}
	if p, ok := del.fileScoped(); ok {
		return p == d.Path
	}
	lo, okLo := del.Metrics.Lower[filePathFieldID]
	hi, okHi := del.Metrics.Upper[filePathFieldID]
	if okLo && d.Path < string(lo) || okHi && d.Path > string(hi) {
		return false
	}
	return samePartition(del, d)
}

// equalityApplies says whether an equality delete file applies to d: d's data sequence number
// is strictly below del's, and del is global (an unpartitioned spec) or in d's partition.
func equalityApplies(del, d *DataFile) bool {
	return d.Sequence < del.Sequence && (len(del.Partition) == 0 || samePartition(del, d))
}

// PlanDeletes returns, for each data file, the delete files that apply to it. A deletion
// vector replaces the position delete files of its data file (the writer merged them into
// it). Delete files that apply to no data file (left dangling by a rewrite) are never read.
// Two deletion vectors for one data file, a deletion vector without its blob's place, or a
// delete file of another format than Parquet (position, equality) that applies is an error
// naming it.
func PlanDeletes(data, deletes []DataFile) ([]Applied, error) {
	out := make([]Applied, len(data))
	for i := range out {
		out[i].DV = -1
	}
	for k := range deletes {
		del := &deletes[k]
		dv := del.Format == "PUFFIN"
		if dv && (del.Referenced == "" || del.ContentOffset < 0 || del.ContentSize < 0 || del.Content != ContentPosDeletes) {
			return nil, errf.Errorf("%w: deletion vector %s lacks referenced_data_file, content_offset or content_size_in_bytes", ErrMalformed, del.Path)
		}
		for i := range data {
			d, a := &data[i], &out[i]
			switch {
			case del.Content == ContentEqDeletes:
				if equalityApplies(del, d) {
					a.Equality = append(a.Equality, k)
				}
				continue
			case !positionApplies(del, d):
				continue
			case dv && a.DV >= 0:
				return nil, errf.Errorf("%w: deletion vectors %s and %s both apply to %s", ErrMalformed, deletes[a.DV].Path, del.Path, d.Path)
			case dv:
				a.DV = k
			default:
				a.Positions = append(a.Positions, k)
			}
		}
	}
	for i := range out {
		a := &out[i]
		if a.DV >= 0 {
			a.Positions = nil
		}
		for _, k := range append(a.Positions, a.Equality...) {
			if deletes[k].Format != "PARQUET" {
				return nil, errf.Errorf("%w: delete file %s is %s (only Parquet delete files and Puffin deletion vectors are read)",
					ErrUnsupportedFeature, deletes[k].Path, deletes[k].Format)
			}
		}
	}
	return out, nil
}
