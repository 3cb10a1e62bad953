package metacache

import "sync"

// Cache reads and writes entries in a Store for a host. A value that is not an intact entry
// of this format for its key is a miss (and deleted); the Store's errors (a full disk, a
// quota) never fail a scan: they are kept for the report (Err).
type Cache struct {
	store Store
	mu    sync.Mutex
	err   error
}

// New returns a Cache over s; nil when s is nil (every method of a nil Cache is a no-op).
func New(s Store) *Cache {
	if s == nil {
		return nil
	}
	return &Cache{store: s}
}

func tailKey(url string) string { return "tail\x00" + url }

func objectKey(url string) string { return "object\x00" + url }

func planKey(url, fp string) string { return "plan\x00" + url + "\x00" + fp }

func deltaStateKey(root string) string { return "delta-state\x00" + root }

// Object returns the stored bytes of an immutable object (a table log's commit, an Iceberg
// metadata file or manifest: never rewritten under its name), or nil.
func (c *Cache) Object(url string) []byte { return c.get(objectKey(url)) }

// DeltaState returns the stored replayed state of the Delta table at root (a URI ending in
// '/': deltasession.Options.Resume, which checks it against the log), or nil.
func (c *Cache) DeltaState(root string) []byte { return c.get(deltaStateKey(root)) }

// PutDeltaState stores the replayed state of the Delta table at root.
func (c *Cache) PutDeltaState(root string, b []byte) {
	if c != nil {
		key := deltaStateKey(root)
		c.fail(c.store.Put(key, Encode(key, b)))
	}
}

// get returns the payload of the intact entry stored under key, or nil.
func (c *Cache) get(key string) []byte {
	if c == nil {
		return nil
	}
	b, err := c.store.Get(key)
	if err != nil || b == nil {
		c.fail(err)
		return nil
	}
	p, ok := Decode(key, b)
	if !ok {
		c.fail(c.store.Delete(key))
		return nil
	}
	return p
}

// PutObject stores the bytes of an immutable object.
func (c *Cache) PutObject(url string, b []byte) {
	if c != nil {
		key := objectKey(url)
		c.fail(c.store.Put(key, Encode(key, b)))
	}
}

// Tail returns the entry of the file at url, or nil.
func (c *Cache) Tail(url string) *Tail {
	if c == nil {
		return nil
	}
	key := tailKey(url)
	b, err := c.store.Get(key)
	if err != nil {
		c.fail(err)
		return nil
	}
	if b == nil {
		return nil
	}
	p, ok := Decode(key, b)
	var t *Tail
	if ok {
		t, err = UnmarshalTail(p)
	}
	if !ok || err != nil || !t.Versioned() {
		c.fail(c.store.Delete(key))
		return nil
	}
	return t
}

// PutTail stores t as the entry of the file at url; a file without a validator is not kept.
func (c *Cache) PutTail(url string, t *Tail) {
	if c == nil || !t.Versioned() || len(t.Pieces) == 0 {
		return
	}
	key := tailKey(url)
	c.fail(c.store.Put(key, Encode(key, MarshalTail(t))))
}

// Plan returns the stored plan of scans with options fingerprint fp of the file at url, or
// nil. The caller checks its size and validators against the version it reads.
func (c *Cache) Plan(url, fp string) *Plan {
	b := c.get(planKey(url, fp))
	if b == nil {
		return nil
	}
	p, err := UnmarshalPlan(b)
	if err != nil {
		c.fail(c.store.Delete(planKey(url, fp)))
		return nil
	}
	return p
}

// PutPlan stores p as the plan of scans with options fingerprint fp of the file at url.
func (c *Cache) PutPlan(url, fp string, p *Plan) {
	if c != nil {
		key := planKey(url, fp)
		c.fail(c.store.Put(key, Encode(key, MarshalPlan(p))))
	}
}

// DropTail deletes the entry of the file at url.
func (c *Cache) DropTail(url string) {
	if c != nil {
		c.fail(c.store.Delete(tailKey(url)))
	}
}

// Err returns the last error of the Store, if any (for the scan report).
func (c *Cache) Err() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Cache) fail(err error) {
	if err != nil {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
	}
}
