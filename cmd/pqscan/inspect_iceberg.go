package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/pqscan/pqscan"
)

// inspectIceberg is inspect over an Iceberg table: its snapshots (id, time, operation,
// summary) and the files of the one read (path, partition, rows, bytes, deleted rows), as
// text or, with --format json, one JSON object (pqscan.IcebergTable). handled is false when
// srcs is no Iceberg table.
func inspectIceberg(ctx context.Context, w io.Writer, srcs []string, o pqscan.Options, format string) (handled bool, err error) {
	o.DeferSchema = true // no footer is read
	ds, err := pqscan.OpenDataset(ctx, srcs, o)
	if err != nil {
		return true, err
	}
	defer ds.Close()
	t, err := ds.Iceberg(ctx)
	if errors.Is(err, pqscan.ErrSource) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if format == "json" {
		b, err := json.MarshalIndent(t, "", "  ")
		if err != nil {
			return true, err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return true, err
	}
	fmt.Fprintf(w, "table: %s, %d snapshots, snapshot %d read\n", t.Metadata, len(t.Snapshots), t.Snapshot)
	for _, s := range t.Snapshots {
		mark := ""
		if s.ID == t.Snapshot {
			mark = " (read)"
		}
		fmt.Fprintf(w, "snapshot %d: %s %s%s%s\n", s.ID, s.Timestamp.Format(time.RFC3339Nano), s.Operation, summaryText(s.Summary), mark)
	}
	var rows, size, deleted int64
	for _, f := range t.Files {
		fmt.Fprintf(w, "file %s: %s%d rows, %d bytes, %d deleted\n", f.Path, partText(f.Partition), f.Records, f.Size, f.Deleted)
		rows, size, deleted = rows+f.Records, size+f.Size, deleted+f.Deleted
	}
	_, err = fmt.Fprintf(w, "snapshot %d: %d files, %d rows, %d bytes, %d deleted rows\n", t.Snapshot, len(t.Files), rows, size, deleted)
	return true, err
}

func partText(p string) string {
	if p == "" {
		return ""
	}
	return "partition " + p + ", "
}

// summaryText is a snapshot summary as " key=value …" in key order.
func summaryText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, oneLine(m[k]))
	}
	return b.String()
}
