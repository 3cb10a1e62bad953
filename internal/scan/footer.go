package scan

import (
	"container/list"
	"slices"
	"strings"
	"sync"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/variant"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
)

// FileInfo is the decoded footer as the engine hands it to hosts in the Metadata step. Its
// JSON form is what the wasm module returns from pq_metadata (wasm/ABI.md); SchemaIPC travels
// separately (pq_schema).
type FileInfo struct {
	FileSize  int64          `json:"fileSize"`
	NumRows   int64          `json:"numRows"`
	Version   int32          `json:"version"`
	CreatedBy string         `json:"createdBy,omitempty"`
	KeyValue  []KeyValue     `json:"keyValue,omitempty"`
	RowGroups []RowGroupInfo `json:"rowGroups"`
	// IndexStart is where the bloom filters and page indexes begin when they all lie after
	// every column chunk's data (as writers place them, just before the footer), else 0: a
	// host that keeps a file's metadata keeps the bytes it fetched from there on.
	IndexStart int64 `json:"indexStart,omitempty"`
	// SchemaIPC is a schema-only Arrow IPC stream of the scan's output (every column when the
	// session projects none).
	SchemaIPC []byte `json:"-"`

	// thrift is the decoded footer itself, present only from the native engine (for the CLI's
	// inspect and optimize commands; see Thrift).
	thrift *format.FileMetaData
}

// KeyValue is one key/value metadata pair of the footer; a key without a value has "".
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// RowGroupInfo is one row group of FileInfo.
type RowGroupInfo struct {
	NumRows       int64 `json:"numRows"`
	TotalByteSize int64 `json:"totalByteSize"`
}

// Thrift returns the decoded Thrift footer behind fi, or nil when fi came over the wasm
// boundary (JSON). Internal users only: the Thrift types are not public API.
func Thrift(fi *FileInfo) *format.FileMetaData {
	if fi == nil {
		return nil
	}
	return fi.thrift
}

func newFileInfo(size int64, m *format.FileMetaData) *FileInfo {
	fi := &FileInfo{FileSize: size, NumRows: m.NumRows, Version: m.Version, thrift: m}
	if m.CreatedBy != nil {
		fi.CreatedBy = *m.CreatedBy
	}
	for _, kv := range m.KeyValueMetadata {
		v := ""
		if kv.Value != nil {
			v = *kv.Value
		}
		fi.KeyValue = append(fi.KeyValue, KeyValue{Key: kv.Key, Value: v})
	}
	fi.RowGroups = make([]RowGroupInfo, len(m.RowGroups))
	for i, rg := range m.RowGroups {
		fi.RowGroups[i] = RowGroupInfo{NumRows: rg.NumRows, TotalByteSize: rg.TotalByteSize}
	}
	fi.IndexStart = indexStart(m)
	return fi
}

// indexStart is FileInfo.IndexStart.
func indexStart(m *format.FileMetaData) int64 {
	var dataEnd, start int64
	for i := range m.RowGroups {
		for j := range m.RowGroups[i].Columns {
			c := &m.RowGroups[i].Columns[j]
			offs := []*int64{c.ColumnIndexOffset, c.OffsetIndexOffset}
			if c.MetaData != nil {
				offs = append(offs, c.MetaData.BloomFilterOffset)
			}
			for _, o := range offs {
				if o != nil && (start == 0 || *o < start) {
					start = *o
				}
			}
			if md := c.MetaData; md != nil {
				// The chunk starts at its dictionary page when it has one.
				from := md.DataPageOffset
				if d := md.DictionaryPageOffset; d != nil && *d > 0 && *d < from {
					from = *d
				}
				dataEnd = max(dataEnd, from+md.TotalCompressedSize)
			}
		}
	}
	if start <= 0 || start < dataEnd {
		return 0
	}
	return start
}

// footer is what the footer cache keeps of one file: the decoded metadata (read-only once
// cached: sessions share it) and the bytes of the tail read, which often hold the page index
// too, so that a later scan needs neither the tail request nor a second decode.
type footer struct {
	key       string
	size      int64
	metaStart int64
	meta      *format.FileMetaData
	tailOff   int64
	tail      []byte
	cost      int64 // bytes charged against the cache bound
}

// FooterCache keeps decoded footers across sessions of one engine (a process for the native
// engine, an instance for the wasm module), keyed by Options.FileKey and the file size,
// bounded in bytes (least recently used first out). It is safe for concurrent use.
type FooterCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	lru   *list.List // of *footer, most recent first
	byKey map[string]*list.Element
}

// NewFooterCache returns a cache holding at most maxBytes (tail bytes plus an estimate of the
// decoded metadata, charged at 4× the footer's encoded size).
func NewFooterCache(maxBytes int64) *FooterCache {
	return &FooterCache{max: maxBytes, lru: list.New(), byKey: map[string]*list.Element{}}
}

func (c *FooterCache) get(key string, size int64) *footer {
	if c == nil || key == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	f := e.Value.(*footer)
	if f.size != size {
		// Same name, another size: the file changed; forget the old footer.
		c.remove(e)
		return nil
	}
	c.lru.MoveToFront(e)
	return f
}

func (c *FooterCache) put(f *footer) {
	if c == nil || f.key == "" || f.cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[f.key]; ok {
		c.remove(e)
	}
	c.byKey[f.key] = c.lru.PushFront(f)
	c.used += f.cost
	for c.used > c.max {
		c.remove(c.lru.Back())
	}
}

func (c *FooterCache) remove(e *list.Element) {
	f := c.lru.Remove(e).(*footer)
	delete(c.byKey, f.key)
	c.used -= f.cost
}

// Len returns the number of cached footers (for tests).
func (c *FooterCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// cacheFooter stores the footer just decoded, with the bytes of the tail read.
func (s *Scanner) cacheFooter() {
	if s.footers == nil || s.opts.FileKey == "" {
		return
	}
	off := min(s.metaStart, s.size-min(s.opts.TailSize, s.size))
	r := httprange.Range{Off: off, Len: s.size - off}
	b, ok := s.cache.Get(r)
	if !ok {
		return
	}
	// The tail bytes and the decoded footer (its statistics and names are sub-slices of the
	// bytes it was decoded from) now alias this session's pushed buffers beyond its lifetime.
	s.sharesPushed = true
	s.footers.put(&footer{
		key: s.opts.FileKey, size: s.size, metaStart: s.metaStart, meta: s.meta,
		tailOff: off, tail: b, cost: int64(len(b)) + 4*(s.size-8-s.metaStart),
	})
}

// fromCache starts the scan from a cached footer; ok is false on a miss.
func (s *Scanner) fromCache() (ok bool, err error) {
	f := s.footers.get(s.opts.FileKey, s.size)
	if f == nil {
		return false, nil
	}
	// Shared bytes: Push copies them into this session's cache, which may release them.
	if err := s.cache.Push(f.tailOff, f.tail); err != nil {
		return false, err
	}
	s.metaStart = f.metaStart
	s.cachedMeta = f.meta
	return true, nil
}

// SharesPushedBytes reports whether bytes pushed to this session are still referenced by state
// that outlives it (the footer cache). The wasm module recycles a closed session's pushed
// buffers only when this is false: a recycled buffer is overwritten by the host, which would
// corrupt whatever still points into it.
func (s *Scanner) SharesPushedBytes() bool { return s.sharesPushed }

// codecsInModule fails a file one of whose column chunks is compressed with a codec this build
// leaves out (the lean wasm module's codec.Missing) or lists an encoding it leaves out (ALP),
// or that has a VARIANT column this build cannot decode: at the footer, before any row, so
// that the host's rerun in the full module returns the whole result and nothing twice.
func codecsInModule(meta *format.FileMetaData) error {
	if !variant.Supported {
		// The variant decoder is left out too: the whole file goes to the full module,
		// whichever columns a scan then projects.
		for _, e := range meta.Schema {
			if e.LogicalType != nil && e.LogicalType.Kind == format.LogicalVariant {
				return errf.Errorf("scan: column %s: %w: VARIANT", e.Name, codec.ErrNotInModule)
			}
		}
	}
	for i := range meta.RowGroups {
		for _, c := range meta.RowGroups[i].Columns {
			cm := c.MetaData
			if cm == nil {
				continue
			}
			if codec.Missing(codec.Codec(cm.Codec)) {
				return errf.Errorf("scan: column %s: %w: %s", strings.Join(cm.PathInSchema, "."), codec.ErrNotInModule, codec.Codec(cm.Codec))
			}
			if !encoding.ALPSupported && usesALP(cm) {
				return errf.Errorf("scan: column %s: %w: ALP encoding", strings.Join(cm.PathInSchema, "."), codec.ErrNotInModule)
			}
		}
	}
	return nil
}

// usesALP reports whether a chunk's encodings, or its page encoding statistics, list ALP.
func usesALP(cm *format.ColumnMetaData) bool {
	if slices.Contains(cm.Encodings, format.ALP) {
		return true
	}
	for _, e := range cm.EncodingStats {
		if e.Encoding == format.ALP {
			return true
		}
	}
	return false
}
