package httpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/pqscan/pqscan/internal/httprange"
)

// NewReaderAt returns a Source over a local io.ReaderAt (a file) of the given size, with the
// same contract as the HTTP Source: suffix ranges, range checks, serialized deliver. Ranges are
// read one after the other (local reads gain little from parallelism); each ReadAt counts as a
// request. It hands its buffers over (HandsOver): ranges that follow one another are read
// into one buffer, each delivered as its part of it, so a receiver that keeps them can join
// them again without a copy (httprange.Cache.PushOwned).
func NewReaderAt(r io.ReaderAt, size int64) Source {
	return &readerAtSource{r: r, size: size}
}

type readerAtSource struct {
	r    io.ReaderAt
	size int64

	requests, bytes, roundTrips atomic.Int64
}

func (s *readerAtSource) HandsOver() {}

func (s *readerAtSource) Size(context.Context) (int64, error) { return s.size, nil }

func (s *readerAtSource) Stats() Stats {
	return Stats{Requests: s.requests.Load(), Bytes: s.bytes.Load(), RoundTrips: s.roundTrips.Load()}
}

func (s *readerAtSource) Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error {
	rs := make([]httprange.Range, 0, len(ranges))
	for _, r := range ranges {
		if r.Off < 0 {
			off := max(0, s.size+r.Off)
			r = httprange.Range{Off: off, Len: s.size - off}
		}
		if r.Len < 0 {
			return fmt.Errorf("%w: %+v", ErrInvalidRange, r)
		}
		if r.End() > s.size {
			return fmt.Errorf("%w: [%d, %d) of %d bytes", ErrOutOfRange, r.Off, r.End(), s.size)
		}
		rs = append(rs, r)
	}
	issued := false
	defer func() {
		if issued {
			s.roundTrips.Add(1)
		}
	}()
	var run []byte // the buffer of the ranges from rs[i] while each starts where the last ended
	for i, r := range rs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i == 0 || r.Off != rs[i-1].End() {
			n := r.Len
			for j := i + 1; j < len(rs) && rs[j].Off == rs[j-1].End(); j++ {
				n += rs[j].Len
			}
			run = make([]byte, n)
		}
		b := run[:r.Len]
		run = run[r.Len:]
		if r.Len > 0 {
			issued = true
			s.requests.Add(1)
			n, err := s.r.ReadAt(b, r.Off)
			s.bytes.Add(int64(n))
			if n < len(b) {
				if err == nil || errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("%w: read %d of %d bytes at offset %d: %v", ErrShortBody, n, r.Len, r.Off, err)
			}
		}
		if err := deliver(r.Off, b); err != nil {
			return err
		}
	}
	return nil
}
