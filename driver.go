package pqscan

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/drive"
)

// metadata runs the session to its Metadata step (the driver always asks for it) and returns
// the decoded footer with the Arrow schema of the session's output.
func metadata(ctx context.Context, d *drive.Driver, alloc memory.Allocator) (*FileInfo, *arrow.Schema, error) {
	st, err := d.Step(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st.Kind != Metadata || st.Meta == nil {
		return nil, nil, fmt.Errorf("%w: %v before the Metadata step", ErrProtocol, st.Kind)
	}
	rdr, err := ipc.NewReader(bytes.NewReader(st.Meta.SchemaIPC), ipc.WithAllocator(alloc))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: engine schema: %v", ErrProtocol, err)
	}
	defer rdr.Release()
	return st.Meta, rdr.Schema(), nil
}

// decodeBatch reads the one record batch of an engine IPC stream. arrow-go copies the message
// bodies into its own buffers, so the batch outlives the engine's slice.
func decodeBatch(b []byte, alloc memory.Allocator) (arrow.RecordBatch, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(alloc))
	if err != nil {
		return nil, fmt.Errorf("%w: engine IPC: %v", ErrProtocol, err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		if err := rdr.Err(); err != nil {
			return nil, fmt.Errorf("%w: engine IPC: %v", ErrProtocol, err)
		}
		return nil, fmt.Errorf("%w: engine IPC stream without a record batch", ErrProtocol)
	}
	rec := rdr.RecordBatch()
	rec.Retain()
	return rec, nil
}
