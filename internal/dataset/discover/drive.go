package discover

import (
	"context"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
)

// Objects answers a discovery's object requests (every kind: "get", "list", "page", "walk",
// "stat"), as PushObject takes them: the bytes, and whether the object was found. An error
// ends the discovery with it (a host's own refusal: a failed request, a path outside the
// open's scope); a probe page (Optional) that fails is answered not found instead.
type Objects interface {
	Object(ctx context.Context, o Object) (data []byte, found bool, err error)
}

// Ranges reads the byte ranges of the snapshot session's files (checkpoints, deletion
// vector files, delete files), named by their path as the session's file table has them: n
// bytes at off, or with off < 0 the last -off bytes, returning them and the file's size.
type Ranges interface {
	Range(ctx context.Context, path string, off, n int64) (b []byte, size int64, err error)
}

// Run drives a discovery to its result with a Go host's objects and ranges: the driver the
// Go host and tests share (the JS bridge drives the module's session the same way).
func Run(ctx context.Context, o Options, objs Objects, ranges Ranges) (*Result, error) {
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := s.Next()
		switch st.Kind {
		case scan.Done:
			return s.Result(), nil
		case scan.Error:
			return nil, st.Err
		case scan.NeedObjects:
			// Checkpoint ranges carried here are asked again by the NeedData step that follows.
			for _, ob := range s.Objects() {
				b, found, err := objs.Object(ctx, ob)
				if err != nil {
					return nil, err
				}
				if err := s.PushObject(ob.Path, b, found); err != nil {
					return nil, err
				}
			}
		case scan.NeedData:
			files := s.Files()
			for _, r := range st.Reqs {
				if r.File < 0 || r.File >= len(files) {
					return nil, errf.Errorf("%w: NeedData names file %d of %d", ErrProtocol, r.File, len(files))
				}
				b, size, err := ranges.Range(ctx, files[r.File], r.Off, r.Len)
				if err != nil {
					return nil, err
				}
				off := r.Off
				if off < 0 {
					if err := s.SetFileSizeOf(r.File, size); err != nil {
						return nil, err
					}
					off = size - int64(len(b))
				}
				if err := s.PushFile(r.File, off, b); err != nil {
					return nil, err
				}
			}
		default:
			return nil, errf.Errorf("%w: step %v", ErrProtocol, st.Kind)
		}
	}
}
