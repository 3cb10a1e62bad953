package tablehost

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/iceberg"
)

// IcebergTable describes the Iceberg table a Dataset reads (pqscan.Dataset.Iceberg): its snapshots
// and the files of the one read.
type IcebergTable struct {
	// Metadata is the table metadata file read, relative to the table root.
	Metadata  string            `json:"metadata"`
	Snapshots []IcebergSnapshot `json:"snapshots"`
	// Snapshot is the id of the snapshot read (0 when the table has none).
	Snapshot int64         `json:"snapshot"`
	Files    []IcebergFile `json:"files"`
}

// IcebergSnapshot is one snapshot of the table's metadata, oldest first.
type IcebergSnapshot struct {
	ID        int64             `json:"id"`
	Timestamp time.Time         `json:"timestamp"`
	Operation string            `json:"operation,omitempty"`
	Summary   map[string]string `json:"summary,omitempty"`
}

// IcebergFile is a data file of the snapshot read: where it is read, its partition values
// as its manifest writes them, its rows (before deletes) and bytes, and its deleted rows.
type IcebergFile struct {
	Path      string `json:"path"`
	Partition string `json:"partition,omitempty"`
	Records   int64  `json:"records"`
	Size      int64  `json:"size"`
	Deleted   int64  `json:"deleted"`
}

// Iceberg describes the Iceberg table (the files Options.IcebergWhere may match, with the
// deletes that apply read); the table must be one (IsIceberg).
func (t *Table) Iceberg(ctx context.Context) (*IcebergTable, error) {
	it := t.ice
	js, err := iceberg.Decompress(it.meta, it.cache.get(it.meta))
	if err != nil {
		return nil, err
	}
	var m struct {
		Snapshots []struct {
			ID          int64             `json:"snapshot-id"`
			TimestampMs int64             `json:"timestamp-ms"`
			Summary     map[string]string `json:"summary"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("pqscan: %s: %w", it.meta, err)
	}
	out := &IcebergTable{Metadata: it.meta}
	for _, s := range m.Snapshots {
		sum := map[string]string{}
		for k, v := range s.Summary {
			if k != "operation" {
				sum[k] = v
			}
		}
		out.Snapshots = append(out.Snapshots, IcebergSnapshot{ID: s.ID, Timestamp: time.UnixMilli(s.TimestampMs).UTC(), Operation: s.Summary["operation"], Summary: sum})
	}
	sort.SliceStable(out.Snapshots, func(i, j int) bool { return out.Snapshots[i].Timestamp.Before(out.Snapshots[j].Timestamp) })
	it.mu.Lock()
	defer it.mu.Unlock()
	snap, err := t.icebergSnapshot(ctx, it, "", false, nil)
	if err != nil {
		return nil, err
	}
	out.Snapshot = snap.Version
	files, _, err := t.snapshotFiles(it.root, it.nonce, snap, t.delta, it.opened)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		var del int64
		for j := 0; j+1 < len(f.Deleted); j += 2 {
			del += f.Deleted[j+1] - f.Deleted[j]
		}
		fi := IcebergFile{Path: f.Path, Records: f.Rows + del, Size: f.Size, Deleted: del}
		if i < len(snap.Partitions) {
			fi.Partition = snap.Partitions[i]
		}
		out.Files = append(out.Files, fi)
	}
	return out, nil
}
