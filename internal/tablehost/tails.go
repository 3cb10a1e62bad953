package tablehost

import (
	"context"
	"sync"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

// An Iceberg scan's delete files are read by its snapshot session, before the table scan
// starts; the data files' footers would then take a round of their own. While the session
// reads the deletes (its NeedData steps) it names the data files (Snapshot), so their tails
// are fetched alongside, as the table scan asks them (the last TailSize bytes), and served to
// it from memory: delete payloads and footers share one round.

// tailFetch collects the tails fetched ahead, by data file location.
type tailFetch struct {
	wg  sync.WaitGroup
	got sync.Map // location -> []byte
}

// prefetching is a snapshot session that calls start with its files at its first NeedData step.
type prefetching struct {
	deltasession.Driven
	start   func(*deltasession.Snapshot)
	started bool
}

func (p *prefetching) Next() scan.Step {
	st := p.Driven.Next()
	if st.Kind == scan.NeedData && !p.started {
		p.started = true
		if snap, err := p.Snapshot(); err == nil && snap != nil {
			p.start(snap)
		}
	}
	return st
}

// prefetchTails starts fetching the tail of each of snap's data files not fetched ahead before
// (a later scan finds its footer cached). A failed fetch is dropped: the scan asks again.
func (t *Table) prefetchTails(ctx context.Context, it *icebergTable, snap *deltasession.Snapshot, tails *tailFetch) {
	files, srcs, err := t.snapshotFiles(it.root, it.nonce, snap, t.delta, it.opened)
	if err != nil {
		return
	}
	tail := t.opts.TailSize
	if tail <= 0 {
		tail = 64 << 10 // scan.Options' default
	}
	budget := int64(protocol.DefaultMemoryCap) // the tails are held until the scan takes them
	for i, f := range files {
		if it.tailed[f.Path] || f.Size <= 0 || !openscope.IsHTTP(f.Path) { // a local file's tail costs no round
			continue
		}
		r := httprange.Range{Off: f.Size - min(tail, f.Size), Len: min(tail, f.Size)}
		if budget -= r.Len; budget < 0 {
			return // the rest are read by the scan, a round later
		}
		it.tailed[f.Path] = true
		tails.wg.Go(func() {
			_ = srcs[i].Fetch(ctx, []httprange.Range{r}, func(off int64, b []byte) error {
				tails.got.Store(f.Path, append([]byte(nil), b...))
				return nil
			})
		})
	}
}

// tailSource serves ranges inside a tail fetched ahead from memory, once; the rest from Source.
type tailSource struct {
	httpclient.Source
	mu   sync.Mutex
	tail []byte
	off  int64
}

func (s *tailSource) Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error {
	s.mu.Lock()
	tail, off := s.tail, s.off
	var rest []httprange.Range
	var hits []httprange.Range
	for _, r := range ranges {
		if tail != nil && r.Off >= off && r.Off+r.Len <= off+int64(len(tail)) {
			hits = append(hits, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(hits) > 0 {
		s.tail = nil // the footer is read once; the engine caches it
	}
	s.mu.Unlock()
	for _, r := range hits {
		if err := deliver(r.Off, tail[r.Off-off:r.Off-off+r.Len]); err != nil {
			return err
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return s.Source.Fetch(ctx, rest, deliver)
}
