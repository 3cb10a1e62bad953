//go:build !pqscan_lean

package main

import (
	"encoding/base64"
	"errors"
	"math"
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
	v, err := jsonv.Parse(raw)
	var se *jsonv.SyntaxError
	if errors.As(err, &se) && se.Msg == "trailing data" {
		// encoding/json's Decoder read the first value and left the rest unread.
		v, err = jsonv.Parse(raw[:se.Offset])
	}
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

// readValue reads a prune.Value as its UnmarshalJSON did: Kind, I, U, B (base64) and F, a
// number or "NaN", "+Inf", "-Inf"; other members ignored.
func readValue(o *jsonv.Obj) prune.Value {
	v := prune.Value{Kind: prune.Kind(uintN(o, "Kind", 8)), I: o.Int("I"), U: uintN(o, "U", 64)}
	if f := o.Value().Get("F"); f != nil && o.Err() == nil {
		x, ok := f.Float64()
		if f.Kind == jsonv.String || f.Kind == jsonv.Null {
			var err error
			x, err = strconv.ParseFloat(f.S, 64)
			ok = err == nil && (math.IsNaN(x) || math.IsInf(x, 0))
		}
		if !ok {
			o.Failf(errors.New(o.Path("F") + ": " + string(f.Raw) + " is not a float"))
		}
		v.F = x
	}
	switch b := o.Get("B"); {
	case b == nil:
	case b.Kind == jsonv.String:
		var err error
		if v.B, err = base64.StdEncoding.DecodeString(b.S); err != nil {
			o.Failf(errors.New(o.Path("B") + ": not base64"))
		}
	case b.Kind == jsonv.Array: // encoding/json also reads a []byte from an array of bytes
		v.B = make([]byte, len(b.Elems))
		for i := range b.Elems {
			if e := &b.Elems[i]; e.Kind != jsonv.Null {
				n, err := strconv.ParseUint(string(e.Raw), 10, 8)
				if e.Kind != jsonv.Number || err != nil {
					o.Fail("B", "base64 or an array of bytes", e.Kind)
				}
				v.B[i] = byte(n)
			}
		}
	default:
		o.Fail("B", "base64 or an array of bytes", b.Kind)
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
