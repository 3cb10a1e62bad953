package deltasession

import (
	"encoding/base64"
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
	if err := r.Unknown("version", "asOf", "canList", "memoryCap", "tailSize", "root", "resume", "keepState"); err != nil {
		return o, err
	}
	if n, ok := r.OptInt("version"); ok {
		o.Version = &n
	}
	if n, ok := r.OptInt("asOf"); ok {
		o.AsOf = &n
	}
	o.CanList, o.MemoryCap, o.TailSize, o.Root, o.KeepState = r.Bool("canList"), r.Int("memoryCap"), r.Int("tailSize"), r.Str("root"), r.Bool("keepState")
	o.Resume = r.Bytes("resume")
	return o, r.Err()
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
	w.Flag(`,"absolute":`, o.Absolute)
	if o.Entry != "" {
		w.Str(`,"entry":`, o.Entry)
	}
	w.Flag(`,"optional":`, o.Optional)
	w.Flag(`,"fresh":`, o.Fresh)
	return w.End()
}

// AppendSnapshot appends s as Marshal writes it, with table (the JSON of s.Table, written by
// its own package's writer) in its place.
func AppendSnapshot(b []byte, s *Snapshot, table []byte) []byte {
	w := jsonw.Begin(b)
	AppendSnapshotMembers(&w, s, table)
	return w.End()
}

// AppendSnapshotMembers writes s's members into w, as Marshal writes them where a struct
// embeds a *Snapshot (discover.Result).
func AppendSnapshotMembers(w *jsonw.Object, s *Snapshot, table []byte) {
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
	w.Flag(`,"resumed":`, s.Resumed)
	if s.CommitsRead != 0 {
		w.Int(`,"commitsRead":`, s.CommitsRead)
	}
}
