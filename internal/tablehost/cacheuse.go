package tablehost

import (
	"sync"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/protocol"
)

// cacheUse gathers what a dataset took from the persistent metadata store (Metadata): the
// objects of its table log and its files' tails, as they are read (the objects of one round
// concurrently). A nil cacheUse gathers nothing.
type cacheUse struct {
	mu  sync.Mutex
	rep protocol.DatasetMetadata
}

// object records a table log object read from the store.
func (u *cacheUse) object(path string) {
	if u != nil {
		u.mu.Lock()
		u.rep.ObjectsFromCache = append(u.rep.ObjectsFromCache, path)
		u.rep.RequestsSaved++
		u.mu.Unlock()
	}
}

// source is metacache.NewHTTP, recording a file whose tail came from the store.
func (u *cacheUse) source(c *metacache.Cache, url string, o httpclient.Options, immutable bool) httpclient.Source {
	src, stored := metacache.NewHTTP(c, url, o, immutable)
	if stored != nil && u != nil {
		u.mu.Lock()
		u.rep.TailsFromCache++
		u.rep.RequestsSaved += stored.Requests
		u.mu.Unlock()
	}
	return src
}

// delta records the Delta snapshot an open read.
func (u *cacheUse) delta(snap *deltasession.Snapshot) {
	d := &protocol.DeltaSnapshot{Version: snap.Version, Resumed: snap.Resumed}
	if snap.Resumed {
		d.ResumedFrom, d.CommitsRead = new(snap.Version-snap.CommitsRead), snap.CommitsRead
	}
	u.mu.Lock()
	u.rep.Delta = d
	u.mu.Unlock()
}

// Metadata says what of the dataset's metadata came from the persistent metadata store so far
// (an Iceberg table's files are found per scan: its counts grow with them).
func (t *Table) Metadata() protocol.DatasetMetadata {
	u := t.opts.use
	u.mu.Lock()
	defer u.mu.Unlock()
	rep := u.rep
	rep.ObjectsFromCache = append([]string(nil), rep.ObjectsFromCache...)
	if rep.Delta != nil {
		d := *rep.Delta
		rep.Delta = &d
	}
	return rep
}
