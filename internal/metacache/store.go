package metacache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Store keeps values by key. Get returns (nil, nil) for a missing key. Implementations are
// safe for concurrent use; they may drop any value at any time (a bound, a quota).
type Store interface {
	Get(key string) ([]byte, error)
	Put(key string, value []byte) error
	Delete(key string) error
}

// DefaultDirBytes bounds a Dir whose bound is not given.
const DefaultDirBytes = 256 << 20

// Dir is a Store in a folder: one file per key (named by the key's SHA-256), written to a
// temporary file and renamed, so that a reader sees a whole value or none (a crash leaves at
// worst a temporary file, removed by the next eviction). Reading a value touches its file's
// modification time; a Put evicts the least recently touched files until the folder holds at
// most its bound. Processes may share a folder.
type Dir struct {
	path string
	max  int64
	mu   sync.Mutex
}

const entryExt = ".pqmc"

// NewDir returns the Store in folder path (created if missing) holding at most maxBytes;
// maxBytes <= 0 means DefaultDirBytes.
func NewDir(path string, maxBytes int64) (*Dir, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultDirBytes
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	return &Dir{path: path, max: maxBytes}, nil
}

// Path returns the folder.
func (d *Dir) Path() string { return d.path }

func (d *Dir) file(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(d.path, hex.EncodeToString(h[:16])+entryExt)
}

// Get implements Store.
func (d *Dir) Get(key string) ([]byte, error) {
	name := d.file(key)
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	now := time.Now()
	_ = os.Chtimes(name, now, now) // recency for eviction; a read-only folder still serves
	return b, nil
}

// Put implements Store.
func (d *Dir) Put(key string, value []byte) error {
	if int64(len(value)) > d.max {
		return nil // larger than the whole store: not kept
	}
	tmp, err := os.CreateTemp(d.path, "put-*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(value)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), d.file(key))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return d.evict()
}

// Delete implements Store.
func (d *Dir) Delete(key string) error {
	err := os.Remove(d.file(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// evict removes the least recently used entries until the folder holds at most d.max bytes,
// and temporary files older than a minute (a Put that never finished).
func (d *Dir) evict() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		name := filepath.Join(d.path, e.Name())
		switch filepath.Ext(e.Name()) {
		case entryExt:
			files = append(files, file{name, info.Size(), info.ModTime()})
			total += info.Size()
		case ".tmp":
			if time.Since(info.ModTime()) > time.Minute {
				os.Remove(name)
			}
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.mod.UnixNano(), b.mod.UnixNano()) })
	for _, f := range files {
		if total <= d.max {
			break
		}
		if os.Remove(f.name) == nil {
			total -= f.size
		}
	}
	return nil
}
