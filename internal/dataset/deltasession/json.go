package deltasession

import (
	"encoding/base64"
	"errors"
	"strconv"

	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// The session's JSON without encoding/json (package jsonv reads, jsonw writes): the options
// of pq_open_delta, the objects of a NeedObjects step and a listing's answer. Names match
// exactly; what is written is byte for byte what encoding/json's Marshal wrote.

// ParseOptions reads the JSON of pq_open_delta: its first value (what follows is not read,
// as a stream decoder reads it), an object whose members are Options' and no other.
func ParseOptions(b []byte) (Options, error) {
	var o Options
	v, _, err := jsonv.ParseFirst(b)
	if err != nil {
		return o, err
	}
	r := jsonv.NewObj(&v, "")
	if err := Unknown(&v, "version", "asOf", "canList", "memoryCap", "tailSize", "root", "resume", "keepState"); err != nil {
		return o, err
	}
	if n, ok := r.OptInt("version"); ok {
		o.Version = &n
	}
	if n, ok := r.OptInt("asOf"); ok {
		o.AsOf = &n
	}
	o.CanList, o.MemoryCap, o.TailSize, o.Root, o.KeepState = r.Bool("canList"), r.Int("memoryCap"), r.Int("tailSize"), r.Str("root"), r.Bool("keepState")
	o.Resume = Bytes(r, "resume")
	return o, r.Err()
}

// Unknown is an error naming the first member of object v not among names (nil when v is
// not an object): options refuse what they do not know, so a misspelt one is not ignored.
func Unknown(v *jsonv.Value, names ...string) error {
	for _, k := range v.Keys {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return errors.New("unknown field " + strconv.Quote(k))
		}
	}
	return nil
}

// Bytes is member key as encoding/json decodes a []byte: a base64 string (standard, padded;
// line breaks ignored), or an array of integers 0–255; nil when absent or null.
func Bytes(o *jsonv.Obj, key string) []byte {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	switch m.Kind {
	case jsonv.String:
		b := make([]byte, base64.StdEncoding.DecodedLen(len(m.S)))
		n, err := base64.StdEncoding.Decode(b, []byte(m.S))
		if err != nil {
			o.Fail(key, "base64", jsonv.String)
			return nil
		}
		return b[:n]
	case jsonv.Array:
		b := make([]byte, len(m.Elems))
		for i := range m.Elems {
			e := &m.Elems[i]
			if e.Kind == jsonv.Null {
				continue
			}
			n, ok := e.Int64()
			if !ok || n < 0 || n > 255 {
				o.Fail(key, "base64 or bytes", e.Kind)
				return nil
			}
			b[i] = byte(n)
		}
		return b
	}
	o.Fail(key, "base64", m.Kind)
	return nil
}

// parseListing reads a listing's answer: a JSON array of ListEntry (null: none).
func parseListing(b []byte) ([]ListEntry, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, err
	}
	root := jsonv.NewObj(&jsonv.Value{Kind: jsonv.Object, Keys: []string{"listing"}, Vals: []jsonv.Value{v}}, "")
	es := root.Objs("listing")
	out := make([]ListEntry, len(es))
	for i, e := range es {
		out[i] = ListEntry{Name: e.Str("name"), Size: e.Int("size"), ModTime: e.Int("modTime")}
	}
	if es == nil {
		out = nil
	}
	return out, root.Err()
}

// AppendObjects appends objs as a JSON array (null when nil), as Marshal writes []Object.
func AppendObjects(b []byte, objs []Object) []byte {
	if objs == nil {
		return append(b, "null"...)
	}
	sep := byte('[')
	for i := range objs {
		b, sep = appendObject(append(b, sep), &objs[i]), ','
	}
	if sep == '[' {
		b = append(b, sep)
	}
	return append(b, ']')
}

func appendObject(b []byte, o *Object) []byte {
	w := jsonw.Begin(b)
	w.Str(`,"kind":`, o.Kind)
	w.Str(`,"path":`, o.Path)
	flag(&w, `,"absolute":`, o.Absolute)
	if o.Entry != "" {
		w.Str(`,"entry":`, o.Entry)
	}
	flag(&w, `,"optional":`, o.Optional)
	flag(&w, `,"fresh":`, o.Fresh)
	return w.End()
}

// flag writes an omitempty boolean member: only when true.
//
//go:noinline
func flag(w *jsonw.Object, name string, v bool) {
	if v {
		w.Key(name)
		w.B = append(w.B, "true"...)
	}
}

// AppendSnapshot appends s as Marshal writes it, with table (the JSON of s.Table, written by
// its own package's writer) in its place.
func AppendSnapshot(b []byte, s *Snapshot, table []byte) []byte {
	w := jsonw.Begin(b)
	w.Int(`,"version":`, s.Version)
	w.Key(`,"table":`)
	w.B = append(w.B, table...)
	w.Strings(`,"paths":`, s.Paths)
	if len(s.Absolute) > 0 {
		w.Key(`,"absolute":`)
		sep := byte('[')
		for _, a := range s.Absolute {
			w.B, sep = strconv.AppendBool(append(w.B, sep), a), ','
		}
		w.B = append(w.B, ']')
	}
	if s.Metadata != "" {
		w.Str(`,"metadata":`, s.Metadata)
	}
	if len(s.Partitions) > 0 {
		w.Strings(`,"partitions":`, s.Partitions)
	}
	if len(s.State) > 0 {
		w.Key(`,"state":`)
		w.B = append(base64.StdEncoding.AppendEncode(append(w.B, '"'), s.State), '"')
	}
	flag(&w, `,"resumed":`, s.Resumed)
	if s.CommitsRead != 0 {
		w.Int(`,"commitsRead":`, s.CommitsRead)
	}
	return w.End()
}
