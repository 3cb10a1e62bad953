package optimize

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/decode/format"
)

// FileLayout is what dataset advice needs of one file: its size, and how much of it is data
// (column chunks) rather than metadata (footer, page indexes, bloom filters).
type FileLayout struct {
	Path      string
	Size      int64
	DataBytes int64 // the column chunks' compressed bytes
	Rows      int64
	RowGroups int
}

// MetaBytes is what a reader of the file pays before any data: the footer, the page index
// and bloom filters, and the magic.
func (f FileLayout) MetaBytes() int64 { return max(0, f.Size-f.DataBytes) }

// Layout summarises a file of size bytes with footer m.
func Layout(path string, size int64, m *format.FileMetaData) FileLayout {
	l := FileLayout{Path: path, Size: size, Rows: m.NumRows, RowGroups: len(m.RowGroups)}
	for _, rg := range m.RowGroups {
		for _, cc := range rg.Columns {
			if cc.MetaData != nil {
				l.DataBytes += cc.MetaData.TotalCompressedSize
			}
		}
	}
	return l
}

// Thresholds of AdviseDataset.
const (
	// adviseMetaShare: footers and indexes above this share of the data bytes dominate a
	// query that needs little data (each file costs a footer read, often its own round trip).
	adviseMetaShare = 0.10
	// adviseSmallFile: files whose data is under this are smaller than one good row group.
	adviseSmallFile = 16 << 20
)

// AdviseDataset says whether a dataset's files should be compacted (pqscan optimize with
// several inputs): when their footers and indexes dominate the data, or the files are
// smaller than one row group. One file needs no compaction.
func AdviseDataset(files []FileLayout) []Advice {
	if len(files) < 2 {
		return nil
	}
	var meta, data int64
	small := 0
	for _, f := range files {
		meta += f.MetaBytes()
		data += f.DataBytes
		if f.DataBytes < adviseSmallFile {
			small++
		}
	}
	var out []Advice
	if float64(meta) > adviseMetaShare*float64(data) {
		out = append(out, Advice{Kind: "compact-footers", Message: fmt.Sprintf(
			"%d files: footers and indexes are %d bytes, %.0f%% of the %d data bytes, and every file costs a footer read; compact them with `pqscan optimize SRC... OUT`",
			len(files), meta, 100*float64(meta)/float64(max(data, 1)), data)})
	}
	if small*2 > len(files) {
		out = append(out, Advice{Kind: "compact-small-files", Message: fmt.Sprintf(
			"%d of %d files hold under 16 MiB of data, less than one row group each; compact them with `pqscan optimize SRC... OUT --row-group-size 128MB`", small, len(files))})
	}
	return out
}
