package format

import "github.com/pqscan/pqscan/internal/decode/thrift"

// A fast path for the bulk of a footer: its ColumnChunks (with their ColumnMetaData,
// Statistics and PageEncodingStats), which are nearly all of a footer's bytes — 434 of them
// on a 62-row-group, 7-column file. The table-driven reader (fields.go) calls a closure per
// field and allocates every optional scalar and byte string on its own; in WebAssembly, where
// calls and allocations cost several times what they do natively, that made decoding such a
// footer most of the engine's work between the tail response and its next request.
//
// The fast path reads the same fields with the same rules as the specs in filemeta.go and
// columnmeta.go — a field whose id is unknown or whose wire type differs is skipped, the last
// of duplicate fields wins, required fields must be present, lists are bounded by the input —
// and takes its small values from slabs shared by the whole footer (alloc). It never reports
// an error itself: at the first problem it seeks back to the chunk's start and the
// table-driven reader decodes the chunk again, so errors (with their paths) come from one
// place. FuzzColumnChunkFast holds both readers to identical results on every input.

// fastChunks turns the fast path off, for the differential tests.
var fastChunks = true

// alloc hands out a footer's small values from slabs that grow by doubling (so at most about
// twice what is used is allocated, and a tiny hostile footer allocates little). Values taken
// from it are distinct elements with capacity equal to their length, so they never alias each
// other or the input.
type alloc struct {
	i64   []int64
	i32   []int32
	bools []bool
	bytes []byte
	encs  []Encoding
	pes   []PageEncodingStats
	strs  []string
	metas []ColumnMetaData
	stats []Statistics
	names map[string]string
}

const (
	slabMax   = 256  // elements per slab at most
	bytesMax  = 4096 // bytes per byte slab at most
	ownBytes  = 256  // byte strings longer than this get their own allocation
	maxInters = 1024 // distinct path names interned at most
)

// take returns n fresh elements of *s, starting a new slab when the current one is full.
func take[T any](s *[]T, n int, limit int) []T {
	b := *s
	if cap(b)-len(b) < n {
		c := min(max(2*cap(b), 2*n, 1), limit)
		if c < n {
			return make([]T, n)
		}
		b = make([]T, 0, c)
	}
	l := len(b)
	b = b[:l+n]
	*s = b
	return b[l : l+n : l+n]
}

func (a *alloc) int64(v int64) *int64 {
	p := &take(&a.i64, 1, slabMax)[0]
	*p = v
	return p
}

func (a *alloc) int32(v int32) *int32 {
	p := &take(&a.i32, 1, slabMax)[0]
	*p = v
	return p
}

func (a *alloc) bool(v bool) *bool {
	p := &take(&a.bools, 1, slabMax)[0]
	*p = v
	return p
}

// copy returns a copy of b that is never nil (present but empty stays non-nil, as
// thrift.Reader.Binary returns it).
func (a *alloc) copy(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > ownBytes {
		return append([]byte(nil), b...)
	}
	out := take(&a.bytes, len(b), bytesMax)
	copy(out, b)
	return out
}

// name returns b as a string, one allocation per distinct name: path_in_schema repeats every
// column's path in every row group.
func (a *alloc) name(b []byte) string {
	if s, ok := a.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if a.names == nil {
		a.names = make(map[string]string)
	}
	if len(a.names) < maxInters {
		a.names[s] = s
	}
	return s
}

// fastColumnChunk decodes one ColumnChunk, or seeks back to where it started and reports
// false so that the table-driven reader decodes it (and reports any error).
func fastColumnChunk(r *thrift.Reader, a *alloc) (ColumnChunk, bool) {
	start := r.Offset()
	var c ColumnChunk
	if r.Enter() != nil {
		return c, false
	}
	ok := fastColumnChunkFields(r, a, &c)
	r.Leave()
	if !ok {
		r.Seek(start)
	}
	return c, ok
}

func fastColumnChunkFields(r *thrift.Reader, a *alloc, c *ColumnChunk) bool {
	var prev int16
	var seen uint32
	for {
		id, t, err := r.FieldHeader(prev)
		if err != nil {
			return false
		}
		if t == thrift.Stop {
			return seen&(1<<2) != 0 // file_offset is required
		}
		switch {
		case id == 1 && t == thrift.Binary:
			var b []byte
			if b, err = r.BinaryRef(); err == nil {
				s := string(b)
				c.FilePath = &s
			}
		case id == 2 && t == thrift.I64:
			c.FileOffset, err = r.I64()
			seen |= 1 << 2
		case id == 3 && t == thrift.Struct:
			m := &take(&a.metas, 1, slabMax)[0]
			if !fastColumnMetaData(r, a, m) {
				return false
			}
			c.MetaData = m
		case id == 4 && t == thrift.I64:
			var v int64
			v, err = r.I64()
			c.OffsetIndexOffset = a.int64(v)
		case id == 5 && t == thrift.I32:
			var v int32
			v, err = r.I32()
			c.OffsetIndexLength = a.int32(v)
		case id == 6 && t == thrift.I64:
			var v int64
			v, err = r.I64()
			c.ColumnIndexOffset = a.int64(v)
		case id == 7 && t == thrift.I32:
			var v int32
			v, err = r.I32()
			c.ColumnIndexLength = a.int32(v)
		case id == 8 && t == thrift.Struct:
			c.HasCryptoMetadata = true
			err = r.Skip(t)
		case id == 9 && t == thrift.Binary:
			var b []byte
			if b, err = r.BinaryRef(); err == nil {
				c.EncryptedColumnMetadata = a.copy(b)
			}
		default:
			err = r.Skip(t)
		}
		if err != nil {
			return false
		}
		prev = id
	}
}

// isList is the spec's "list" field type: a list or a set on the wire.
func isList(t thrift.Type) bool { return t == thrift.List || t == thrift.Set }

// columnMetaDataRequired are the bits of ColumnMetaData's required field ids.
const columnMetaDataRequired = 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<9

// fastColumnMetaData decodes a ColumnMetaData struct into m; false on any problem (the caller
// falls back for the whole chunk).
func fastColumnMetaData(r *thrift.Reader, a *alloc, m *ColumnMetaData) bool {
	if r.Enter() != nil {
		return false
	}
	defer r.Leave()
	var prev int16
	var seen uint32
	for {
		id, t, err := r.FieldHeader(prev)
		if err != nil {
			return false
		}
		if t == thrift.Stop {
			return seen&columnMetaDataRequired == columnMetaDataRequired
		}
		known := true
		switch {
		case id == 1 && t == thrift.I32:
			var v int32
			v, err = r.I32()
			m.Type = Type(v)
		case id == 2 && isList(t):
			m.Encodings, err = fastEncodings(r, a)
		case id == 3 && isList(t):
			m.PathInSchema, err = fastNames(r, a)
		case id == 4 && t == thrift.I32:
			var v int32
			v, err = r.I32()
			m.Codec = CompressionCodec(v)
		case id == 5 && t == thrift.I64:
			m.NumValues, err = r.I64()
		case id == 6 && t == thrift.I64:
			m.TotalUncompressedSize, err = r.I64()
		case id == 7 && t == thrift.I64:
			m.TotalCompressedSize, err = r.I64()
		case id == 8 && isList(t):
			m.KeyValueMetadata, err = readKeyValues(r)
		case id == 9 && t == thrift.I64:
			m.DataPageOffset, err = r.I64()
		case id == 10 && t == thrift.I64:
			var v int64
			v, err = r.I64()
			m.IndexPageOffset = a.int64(v)
		case id == 11 && t == thrift.I64:
			var v int64
			v, err = r.I64()
			m.DictionaryPageOffset = a.int64(v)
		case id == 12 && t == thrift.Struct:
			s := &take(&a.stats, 1, slabMax)[0]
			if !fastStatistics(r, a, s) {
				return false
			}
			m.Statistics = s
		case id == 13 && isList(t):
			m.EncodingStats, err = fastEncodingStats(r, a)
		case id == 14 && t == thrift.I64:
			var v int64
			v, err = r.I64()
			m.BloomFilterOffset = a.int64(v)
		case id == 15 && t == thrift.I32:
			var v int32
			v, err = r.I32()
			m.BloomFilterLength = a.int32(v)
		case id == 16 && t == thrift.Struct:
			m.SizeStatistics, err = readSizeStatistics(r)
		case id == 17 && t == thrift.Struct:
			m.GeospatialStatistics, err = readGeospatialStatistics(r)
		default:
			known = false
			err = r.Skip(t)
		}
		if err != nil {
			return false
		}
		if known {
			seen |= 1 << id
		}
		prev = id
	}
}

func fastEncodings(r *thrift.Reader, a *alloc) ([]Encoding, error) {
	n, err := listHeader(r, thrift.I32)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []Encoding{}, nil
	}
	out := take(&a.encs, n, slabMax)
	for i := range out {
		v, err := r.I32()
		if err != nil {
			return nil, err
		}
		out[i] = Encoding(v)
	}
	return out, nil
}

func fastNames(r *thrift.Reader, a *alloc) ([]string, error) {
	n, err := listHeader(r, thrift.Binary)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []string{}, nil
	}
	out := take(&a.strs, n, slabMax)
	for i := range out {
		b, err := r.BinaryRef()
		if err != nil {
			return nil, err
		}
		out[i] = a.name(b)
	}
	return out, nil
}

func fastEncodingStats(r *thrift.Reader, a *alloc) ([]PageEncodingStats, error) {
	n, err := listHeader(r, thrift.Struct)
	if err != nil {
		return nil, err
	}
	if n > r.Remaining()/minPageEncodingStats {
		return nil, thrift.ErrSize // the table-driven reader words the error
	}
	if n == 0 {
		return []PageEncodingStats{}, nil
	}
	out := take(&a.pes, n, slabMax)
	for i := range out {
		if !fastPageEncodingStats(r, &out[i]) {
			return nil, ErrInvalid
		}
	}
	return out, nil
}

func fastPageEncodingStats(r *thrift.Reader, s *PageEncodingStats) bool {
	if r.Enter() != nil {
		return false
	}
	defer r.Leave()
	var prev int16
	var seen uint32
	for {
		id, t, err := r.FieldHeader(prev)
		if err != nil {
			return false
		}
		if t == thrift.Stop {
			return seen == 1<<1|1<<2|1<<3
		}
		var v int32
		switch {
		case id >= 1 && id <= 3 && t == thrift.I32:
			if v, err = r.I32(); err != nil {
				return false
			}
			switch id {
			case 1:
				s.PageType = PageType(v)
			case 2:
				s.Encoding = Encoding(v)
			default:
				s.Count = v
			}
			seen |= 1 << id
		default:
			if r.Skip(t) != nil {
				return false
			}
		}
		prev = id
	}
}

func fastStatistics(r *thrift.Reader, a *alloc, s *Statistics) bool {
	if r.Enter() != nil {
		return false
	}
	defer r.Leave()
	var prev int16
	for {
		id, t, err := r.FieldHeader(prev)
		if err != nil {
			return false
		}
		if t == thrift.Stop {
			return true
		}
		var b []byte
		var v int64
		switch {
		case (id == 1 || id == 2 || id == 5 || id == 6) && t == thrift.Binary:
			if b, err = r.BinaryRef(); err != nil {
				return false
			}
			b = a.copy(b)
			switch id {
			case 1:
				s.Max = b
			case 2:
				s.Min = b
			case 5:
				s.MaxValue = b
			default:
				s.MinValue = b
			}
		case (id == 3 || id == 4 || id == 9) && t == thrift.I64:
			if v, err = r.I64(); err != nil {
				return false
			}
			switch id {
			case 3:
				s.NullCount = a.int64(v)
			case 4:
				s.DistinctCount = a.int64(v)
			default:
				s.NanCount = a.int64(v)
			}
		case (id == 7 || id == 8) && t.IsBool():
			if id == 7 {
				s.IsMaxValueExact = a.bool(t == thrift.BoolTrue)
			} else {
				s.IsMinValueExact = a.bool(t == thrift.BoolTrue)
			}
		default:
			if r.Skip(t) != nil {
				return false
			}
		}
		prev = id
	}
}
