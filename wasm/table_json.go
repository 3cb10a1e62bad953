//go:build !pqscan_lean

package main

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// The JSON of pq_open_table's options and of pq_table_fields, without encoding/json: the
// full module's size budget has no room for its decoder, its encoder and reflect. The wire
// form stays what encoding/json gave: tablescan.Options' members by their json tags (the
// embedded scan.Options' members alongside), the untagged types (arrowipc.Field, hive.Value,
// prune.ColStats, prune.ColumnType, prune.Value) by their Go field names, unknown members
// refused except inside a prune.Value (its own UnmarshalJSON ignored them). Names match
// exactly; encoding/json also matched them without regard to case. table_json_test.go checks
// both directions against encoding/json.

// tableMembers are the members tablescan.Options has itself; the rest are scan.Options'.
const tableMembers = " files root noHive table partitionColumns statTypes zonelessUTC foldCase byPosition nameMapping unionSchema filesFrom filesTo "

// decodeTableOptions reads pq_open_table's options.
func decodeTableOptions(raw []byte) (tablescan.Options, error) {
	// encoding/json's Decoder read the first value and left the rest unread.
	v, _, err := jsonv.ParseFirst(raw)
	if err != nil {
		return tablescan.Options{}, err
	}
	var opts tablescan.Options
	o := jsonv.NewObj(&v, "")
	if err := o.Err(); err != nil {
		return opts, err
	}
	// scan.Options' members go to its own decoder, as an object of their own.
	rest := jsonw.Begin(nil)
	for i, k := range v.Keys {
		if !isMember(tableMembers, k) {
			rest.AnyKey(k)
			rest.B = append(rest.B, v.Vals[i].Raw...)
		}
	}
	if opts.Options, err = scan.DecodeOptions(rest.End()); err != nil {
		return opts, err
	}
	if fs := o.Objs("files"); fs != nil {
		opts.Files = make([]tablescan.File, len(fs))
		for i, f := range fs {
			opts.Files[i] = readFile(f)
		}
	}
	opts.Root = o.Str("root")
	opts.NoHive = o.Bool("noHive")
	opts.Table = readFields(o, "table")
	if cs := o.Objs("partitionColumns"); cs != nil {
		opts.PartitionColumns = make([]hive.Column, len(cs))
		for i, c := range cs {
			known(c, " Name Type ")
			opts.PartitionColumns[i] = hive.Column{Name: c.Str("Name"), Type: readColumnType(c.Child("Type"))}
		}
	}
	if keys, vals := o.ObjMap("statTypes"); keys != nil {
		opts.StatTypes = make(map[string]prune.ColumnType, len(keys))
		for i, k := range keys {
			opts.StatTypes[k] = readColumnType(vals[i])
		}
	}
	opts.ZonelessUTC = o.Bool("zonelessUTC")
	opts.FoldCase = o.Bool("foldCase")
	opts.ByPosition = o.Bool("byPosition")
	opts.NameMapping = readMappings(o.Objs("nameMapping"))
	opts.UnionSchema = o.Bool("unionSchema")
	opts.FilesFrom = int(o.Int("filesFrom"))
	opts.FilesTo = int(o.Int("filesTo"))
	return opts, o.Err()
}

// known refuses a member of o that names is without (names: " a b c ").
func known(o *jsonv.Obj, names string) {
	v := o.Value()
	if v == nil {
		return
	}
	for _, k := range v.Keys {
		if !isMember(names, k) {
			o.Failf(errors.New(o.Path(k) + ": unknown member"))
		}
	}
}

// isMember reports whether k is one of names (" a b c ").
func isMember(names, k string) bool {
	return k != "" && !strings.ContainsRune(k, ' ') && strings.Contains(names, " "+k+" ")
}

// intN is member key as an integer of bits bits (0 when absent or null).
func intN(o *jsonv.Obj, key string, bits uint) int64 {
	m := o.Get(key)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseInt(string(m.Raw), 10, int(bits))
	if m.Kind != jsonv.Number || err != nil {
		o.Fail(key, "an integer of "+strconv.Itoa(int(bits))+" bits", m.Kind)
	}
	return n
}

// uintN is member key as an unsigned integer of bits bits (0 when absent or null).
func uintN(o *jsonv.Obj, key string, bits uint) uint64 {
	m := o.Get(key)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseUint(string(m.Raw), 10, int(bits))
	if m.Kind != jsonv.Number || err != nil {
		o.Fail(key, "an unsigned integer of "+strconv.Itoa(int(bits))+" bits", m.Kind)
	}
	return n
}

func readFile(o *jsonv.Obj) tablescan.File {
	known(o, " path size key version partition stats rows deleted fill ")
	f := tablescan.File{Path: o.Str("path"), Size: o.Int("size"), Key: o.Str("key"), Version: o.Str("version"),
		Rows: o.Int("rows"), Deleted: o.Ints("deleted")}
	if ps := o.Objs("partition"); ps != nil {
		f.Partition = make([]hive.Value, len(ps))
		for i, p := range ps {
			f.Partition[i] = readHiveValue(p)
		}
	}
	if keys, vals := o.ObjMap("stats"); keys != nil {
		f.Stats = make(map[string]prune.ColStats, len(keys))
		for i, k := range keys {
			f.Stats[k] = readColStats(vals[i])
		}
	}
	if keys, vals := o.ObjMap("fill"); keys != nil {
		f.Fill = make(map[string]hive.Value, len(keys))
		for i, k := range keys {
			f.Fill[k] = readHiveValue(vals[i])
		}
	}
	return f
}

func readHiveValue(o *jsonv.Obj) hive.Value {
	known(o, " V Null ")
	return hive.Value{V: readValue(o.Child("V")), Null: o.Bool("Null")}
}

// readValue reads a prune.Value as its UnmarshalJSON did (prune.ValueFromJSON).
func readValue(o *jsonv.Obj) prune.Value {
	v, err := prune.ValueFromJSON(o.Value(), o.Name())
	if err != nil {
		o.Failf(err)
	}
	return v
}

func readColStats(o *jsonv.Obj) prune.ColStats {
	known(o, " HasMin HasMax Min Max MinExact MaxExact NullCount NumValues NaNCount OnlyNaN Geo ")
	s := prune.ColStats{HasMin: o.Bool("HasMin"), HasMax: o.Bool("HasMax"), Min: readValue(o.Child("Min")),
		Max: readValue(o.Child("Max")), MinExact: o.Bool("MinExact"), MaxExact: o.Bool("MaxExact"),
		NullCount: o.Int("NullCount"), NumValues: o.Int("NumValues"), NaNCount: o.Int("NaNCount"), OnlyNaN: o.Bool("OnlyNaN")}
	if o.Has("Geo") {
		g := o.Child("Geo")
		known(g, " XMin YMin XMax YMax ")
		s.Geo = &geo.Rect{XMin: g.Float("XMin"), YMin: g.Float("YMin"), XMax: g.Float("XMax"), YMax: g.Float("YMax")}
	}
	return s
}

func readColumnType(o *jsonv.Obj) prune.ColumnType {
	known(o, " Kind Unit UTC Scale Precision Physical TypeLength ")
	return prune.ColumnType{Kind: prune.Kind(uintN(o, "Kind", 8)), Unit: prune.Unit(uintN(o, "Unit", 8)), UTC: o.Bool("UTC"),
		Scale: int32(intN(o, "Scale", 32)), Precision: int32(intN(o, "Precision", 32)),
		Physical: prune.Physical(uintN(o, "Physical", 8)), TypeLength: int32(intN(o, "TypeLength", 32))}
}

// readFields is member key as a list of Arrow fields (nil when absent or null).
func readFields(o *jsonv.Obj, key string) []arrowipc.Field {
	fs := o.Objs(key)
	if fs == nil {
		return nil
	}
	out := make([]arrowipc.Field, len(fs))
	for i, f := range fs {
		out[i] = readField(f)
	}
	return out
}

func readField(o *jsonv.Obj) arrowipc.Field {
	known(o, " Name Type Nullable Metadata ")
	f := arrowipc.Field{Name: o.Str("Name"), Nullable: o.Bool("Nullable")}
	t := o.Child("Type")
	known(t, " ID BitWidth Signed ByteWidth Precision Scale Unit TZ Elem Fields KeysSorted Dictionary ")
	f.Type = arrowipc.DataType{ID: arrowipc.TypeID(uintN(t, "ID", 8)), BitWidth: int(t.Int("BitWidth")), Signed: t.Bool("Signed"),
		ByteWidth: int(t.Int("ByteWidth")), Precision: int(t.Int("Precision")), Scale: int(t.Int("Scale")),
		Unit: arrowipc.TimeUnit(uintN(t, "Unit", 8)), TZ: t.Str("TZ"), Fields: readFields(t, "Fields"),
		KeysSorted: t.Bool("KeysSorted"), Dictionary: t.Bool("Dictionary")}
	if t.Has("Elem") {
		e := readField(t.Child("Elem"))
		f.Type.Elem = &e
	}
	if m := o.Get("Metadata"); m != nil {
		if m.Kind != jsonv.Array {
			o.Fail("Metadata", "an array of pairs of strings", m.Kind)
			return f
		}
		f.Metadata = make([][2]string, len(m.Elems))
		for i := range m.Elems {
			// As encoding/json fills a [2]string: null is zero, elements past two are skipped.
			switch p := &m.Elems[i]; p.Kind {
			case jsonv.Null:
			case jsonv.Array:
				for j := 0; j < 2 && j < len(p.Elems); j++ {
					if e := &p.Elems[j]; e.Kind == jsonv.String {
						f.Metadata[i][j] = e.S
					} else if e.Kind != jsonv.Null {
						o.Fail("Metadata", "an array of pairs of strings", e.Kind)
					}
				}
			default:
				o.Fail("Metadata", "an array of pairs of strings", p.Kind)
			}
		}
	}
	return f
}

func readMappings(objs []*jsonv.Obj) []tablescan.NameMapping {
	if objs == nil {
		return nil
	}
	out := make([]tablescan.NameMapping, len(objs))
	for i, o := range objs {
		known(o, " field-id names fields ")
		out[i] = tablescan.NameMapping{Names: o.Strs("names"), Fields: readMappings(o.Objs("fields"))}
		if n, ok := o.OptInt("field-id"); ok {
			id := int(n)
			out[i].FieldID = &id
		}
	}
	return out
}

// appendFields appends fs as encoding/json's Marshal writes them (null for nil).
func appendFields(b []byte, fs []arrowipc.Field) []byte {
	if fs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendField(b, &fs[i])
	}
	return append(b, ']')
}

func appendField(b []byte, f *arrowipc.Field) []byte {
	o := jsonw.Begin(b)
	o.Str(`,"Name":`, f.Name)
	t := &f.Type
	o.Key(`,"Type":`)
	to := jsonw.Begin(o.B)
	to.Int(`,"ID":`, int64(t.ID))
	to.Int(`,"BitWidth":`, int64(t.BitWidth))
	to.B = appendBool(to.B, `,"Signed":`, t.Signed)
	to.Int(`,"ByteWidth":`, int64(t.ByteWidth))
	to.Int(`,"Precision":`, int64(t.Precision))
	to.Int(`,"Scale":`, int64(t.Scale))
	to.Int(`,"Unit":`, int64(t.Unit))
	to.Str(`,"TZ":`, t.TZ)
	to.Key(`,"Elem":`)
	if t.Elem == nil {
		to.B = append(to.B, "null"...)
	} else {
		to.B = appendField(to.B, t.Elem)
	}
	to.Key(`,"Fields":`)
	to.B = appendFields(to.B, t.Fields)
	to.B = appendBool(to.B, `,"KeysSorted":`, t.KeysSorted)
	to.B = appendBool(to.B, `,"Dictionary":`, t.Dictionary)
	o.B = to.End()
	o.B = appendBool(o.B, `,"Nullable":`, f.Nullable)
	o.Key(`,"Metadata":`)
	if f.Metadata == nil {
		o.B = append(o.B, "null"...)
	} else {
		o.B = append(o.B, '[')
		for i, kv := range f.Metadata {
			if i > 0 {
				o.B = append(o.B, ',')
			}
			o.B = append(jsonw.String(append(jsonw.String(append(o.B, '['), kv[0]), ','), kv[1]), ']')
		}
		o.B = append(o.B, ']')
	}
	return o.End()
}

// appendBool appends a member (name as jsonw's Key takes it, after the first) and a boolean.
func appendBool(b []byte, name string, v bool) []byte {
	b = append(b, name...)
	return strconv.AppendBool(b, v)
}

// appendTableOptions appends t as encoding/json's Marshal wrote it (pq_snapshot's "table"):
// the embedded scan.Options' members, then tablescan.Options' own by their json tags, the
// untagged types by their Go field names, maps in key order. A bounding box coordinate that
// JSON cannot hold (NaN, ±Inf) is an error, as it was for Marshal.
func appendTableOptions(b []byte, t *tablescan.Options) ([]byte, error) {
	w := jsonw.Begin(b)
	t.Options.AppendMembers(&w)
	w.Key(`,"files":`)
	if t.Files == nil {
		w.B = append(w.B, "null"...)
	} else {
		sep := byte('[')
		for i := range t.Files {
			var err error
			if w.B, err = appendFile(append(w.B, sep), &t.Files[i]); err != nil {
				return nil, err
			}
			sep = ','
		}
		if sep == '[' {
			w.B = append(w.B, '[')
		}
		w.B = append(w.B, ']')
	}
	if t.Root != "" {
		w.Str(`,"root":`, t.Root)
	}
	w.Flag(`,"noHive":`, t.NoHive)
	if len(t.Table) > 0 {
		w.Key(`,"table":`)
		w.B = appendFields(w.B, t.Table)
	}
	if len(t.PartitionColumns) > 0 {
		w.Key(`,"partitionColumns":`)
		for i, c := range t.PartitionColumns {
			w.B = append(w.B, ",["[b2i(i == 0)])
			o := jsonw.Begin(w.B)
			o.Str(`,"Name":`, c.Name)
			o.Key(`,"Type":`)
			o.B = appendColumnType(o.B, &c.Type)
			w.B = o.End()
		}
		w.B = append(w.B, ']')
	}
	if len(t.StatTypes) > 0 {
		w.Key(`,"statTypes":`)
		m := jsonw.Begin(w.B)
		for _, k := range slices.Sorted(maps.Keys(t.StatTypes)) {
			ct := t.StatTypes[k]
			m.AnyKey(k)
			m.B = appendColumnType(m.B, &ct)
		}
		w.B = m.End()
	}
	w.Flag(`,"zonelessUTC":`, t.ZonelessUTC)
	w.Flag(`,"foldCase":`, t.FoldCase)
	w.Flag(`,"byPosition":`, t.ByPosition)
	if len(t.NameMapping) > 0 {
		w.Key(`,"nameMapping":`)
		w.B = appendMappings(w.B, t.NameMapping)
	}
	w.Flag(`,"unionSchema":`, t.UnionSchema)
	if t.FilesFrom != 0 {
		w.Int(`,"filesFrom":`, int64(t.FilesFrom))
	}
	if t.FilesTo != 0 {
		w.Int(`,"filesTo":`, int64(t.FilesTo))
	}
	return w.End(), nil
}

// b2i is 1 for true: an index into a two-byte string of separators.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func appendFile(b []byte, f *tablescan.File) ([]byte, error) {
	w := jsonw.Begin(b)
	w.Str(`,"path":`, f.Path)
	if f.Size != 0 {
		w.Int(`,"size":`, f.Size)
	}
	if f.Key != "" {
		w.Str(`,"key":`, f.Key)
	}
	if f.Version != "" {
		w.Str(`,"version":`, f.Version)
	}
	if len(f.Partition) > 0 {
		w.Key(`,"partition":`)
		for i := range f.Partition {
			w.B = appendHiveValue(append(w.B, ",["[b2i(i == 0)]), &f.Partition[i])
		}
		w.B = append(w.B, ']')
	}
	if len(f.Stats) > 0 {
		w.Key(`,"stats":`)
		m := jsonw.Begin(w.B)
		for _, k := range slices.Sorted(maps.Keys(f.Stats)) {
			s := f.Stats[k]
			m.AnyKey(k)
			var err error
			if m.B, err = appendColStats(m.B, &s); err != nil {
				return nil, err
			}
		}
		w.B = m.End()
	}
	if f.Rows != 0 {
		w.Int(`,"rows":`, f.Rows)
	}
	if len(f.Deleted) > 0 {
		w.Key(`,"deleted":`)
		for i, r := range f.Deleted {
			w.B = strconv.AppendInt(append(w.B, ",["[b2i(i == 0)]), r, 10)
		}
		w.B = append(w.B, ']')
	}
	if len(f.Fill) > 0 {
		w.Key(`,"fill":`)
		m := jsonw.Begin(w.B)
		for _, k := range slices.Sorted(maps.Keys(f.Fill)) {
			v := f.Fill[k]
			m.AnyKey(k)
			m.B = appendHiveValue(m.B, &v)
		}
		w.B = m.End()
	}
	return w.End(), nil
}

func appendHiveValue(b []byte, v *hive.Value) []byte {
	b = v.V.AppendJSON(append(b, `{"V":`...))
	return append(appendBool(b, `,"Null":`, v.Null), '}')
}

func appendColumnType(b []byte, t *prune.ColumnType) []byte {
	w := jsonw.Begin(b)
	w.Int(`,"Kind":`, int64(t.Kind))
	w.Int(`,"Unit":`, int64(t.Unit))
	w.B = appendBool(w.B, `,"UTC":`, t.UTC)
	w.Int(`,"Scale":`, int64(t.Scale))
	w.Int(`,"Precision":`, int64(t.Precision))
	w.Int(`,"Physical":`, int64(t.Physical))
	w.Int(`,"TypeLength":`, int64(t.TypeLength))
	return w.End()
}

func appendColStats(b []byte, s *prune.ColStats) ([]byte, error) {
	w := jsonw.Begin(b)
	w.Key(`,"HasMin":`)
	w.B = strconv.AppendBool(w.B, s.HasMin)
	w.B = appendBool(w.B, `,"HasMax":`, s.HasMax)
	w.B = s.Min.AppendJSON(append(w.B, `,"Min":`...))
	w.B = s.Max.AppendJSON(append(w.B, `,"Max":`...))
	w.B = appendBool(w.B, `,"MinExact":`, s.MinExact)
	w.B = appendBool(w.B, `,"MaxExact":`, s.MaxExact)
	w.Int(`,"NullCount":`, s.NullCount)
	w.Int(`,"NumValues":`, s.NumValues)
	w.Int(`,"NaNCount":`, s.NaNCount)
	w.B = appendBool(w.B, `,"OnlyNaN":`, s.OnlyNaN)
	w.Key(`,"Geo":`)
	if s.Geo == nil {
		w.B = append(w.B, "null"...)
		return w.End(), nil
	}
	g := s.Geo
	sep := `{"XMin":`
	for i, x := range [4]float64{g.XMin, g.YMin, g.XMax, g.YMax} {
		var ok bool
		if w.B, ok = jsonw.Float(append(w.B, sep...), x); !ok {
			return nil, errors.New("json: unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64))
		}
		sep = [...]string{`,"YMin":`, `,"XMax":`, `,"YMax":`, `}`}[i]
	}
	w.B = append(w.B, sep...)
	return w.End(), nil
}

// appendMappings appends a name mapping as Marshal wrote []tablescan.NameMapping.
func appendMappings(b []byte, ms []tablescan.NameMapping) []byte {
	b = append(b, '[')
	for i := range ms {
		m := &ms[i]
		if i > 0 {
			b = append(b, ',')
		}
		w := jsonw.Begin(b)
		if m.FieldID != nil {
			w.Int(`,"field-id":`, int64(*m.FieldID))
		}
		w.Strings(`,"names":`, m.Names)
		if len(m.Fields) > 0 {
			w.Key(`,"fields":`)
			w.B = appendMappings(w.B, m.Fields)
		}
		b = w.End()
	}
	return append(b, ']')
}
