package schema

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
)

// Options control how file columns are matched to table columns.
type Options struct {
	// ByPosition matches the i-th table column with the i-th file column whatever their
	// names (Impala's PARQUET_FALLBACK_SCHEMA_RESOLUTION=position). Nested struct fields are
	// always matched by name.
	ByPosition bool
	// CaseInsensitive matches names ignoring case (Delta and Spark treat column names so);
	// two file columns equal but for case are ErrAmbiguous.
	CaseInsensitive bool
}

// Column says where one table column's values come from in a file.
type Column struct {
	Name   string // the table column's name
	Source int    // index of the file column; -1: missing, every row reads as null
	// SourceName is the file column's name (differs from Name by position or by case).
	SourceName string
	From, To   Type // file type and table type (From is zero when Source < 0)
	// Children map a struct's fields (table order), a list's element or a map's key and value.
	Children []Column
}

// Missing reports whether the column is absent from the file (read as nulls).
func (c *Column) Missing() bool { return c.Source < 0 }

// Cast reports whether values need converting (From != To, recursively).
func (c *Column) Cast() bool {
	if c.Source < 0 {
		return false
	}
	if c.From != c.To {
		return true
	}
	for i := range c.Children {
		if c.Children[i].Cast() || c.Children[i].Missing() {
			return true
		}
	}
	return false
}

// Mapping is the resolution of one file's schema against the table's: one Column per table
// column, in table order.
type Mapping struct {
	File    string
	Columns []Column
}

// Resolve maps file onto table. file names the file in errors. Missing nullable columns read as
// null; a missing non-nullable column is ErrMissingColumn; a type that does not widen is
// ErrIncompatible. Both errors name the file and the column path.
func Resolve(table, file []Field, fileName string, opts Options) (*Mapping, error) {
	cols, err := resolveFields(table, file, fileName, "", opts, opts.ByPosition)
	if err != nil {
		return nil, err
	}
	return &Mapping{File: fileName, Columns: cols}, nil
}

func resolveFields(table, file []Field, fileName, prefix string, opts Options, byPos bool) ([]Column, error) {
	out := make([]Column, len(table))
	for i, tf := range table {
		path := prefix + tf.Name
		src := -1
		if byPos {
			if i < len(file) {
				src = i
			}
		} else {
			var err error
			if src, err = lookup(file, tf.Name, opts.CaseInsensitive); err != nil {
				return nil, errf.Errorf("%w: %s: column %q", err, fileName, path)
			}
		}
		if src < 0 {
			if !tf.Nullable {
				return nil, errf.Errorf("%w: %s: column %q", ErrMissingColumn, fileName, path)
			}
			out[i] = Column{Name: tf.Name, Source: -1, To: tf.Type}
			continue
		}
		c, err := resolveField(tf, file[src], fileName, path, opts)
		if err != nil {
			return nil, err
		}
		c.Source, c.SourceName = src, file[src].Name
		out[i] = c
	}
	return out, nil
}

func resolveField(tf, ff Field, fileName, path string, opts Options) (Column, error) {
	c := Column{Name: tf.Name, From: ff.Type, To: tf.Type}
	if !Widens(ff.Type, tf.Type) {
		return c, errf.Errorf("%w: %s: column %q is %s in the file, %s in the table", ErrIncompatible, fileName, path, ff.Type, tf.Type)
	}
	var err error
	switch tf.Type.Kind {
	case Struct:
		c.Children, err = resolveFields(tf.Children, ff.Children, fileName, path+".", opts, false)
	case List, Map:
		if len(tf.Children) != len(ff.Children) {
			return c, errf.Errorf("%w: %s: column %q has %d children in the file, %d in the table", ErrIncompatible, fileName, path, len(ff.Children), len(tf.Children))
		}
		c.Children = make([]Column, len(tf.Children))
		for k := range tf.Children {
			sub, err := resolveField(tf.Children[k], ff.Children[k], fileName, path+"."+tf.Children[k].Name, opts)
			if err != nil {
				return c, err
			}
			sub.Source, sub.SourceName = k, ff.Children[k].Name
			c.Children[k] = sub
		}
	}
	return c, err
}

// lookup finds name among fields (-1 when absent).
func lookup(fields []Field, name string, fold bool) (int, error) {
	for i := range fields {
		if fields[i].Name == name {
			return i, nil
		}
	}
	if !fold {
		return -1, nil
	}
	found := -1
	for i := range fields {
		if strings.EqualFold(fields[i].Name, name) {
			if found >= 0 {
				return -1, ErrAmbiguous
			}
			found = i
		}
	}
	return found, nil
}

// NamedSchema is one file's schema, for Unify.
type NamedSchema struct {
	File   string
	Fields []Field
}

// Unify returns the table schema of a dataset without a table-level schema (not Delta): the
// first file's schema, or with union=true the union of all files' top-level columns in the
// order first seen, each column typed by the widest of its file types (which must widen into
// one another, else ErrIncompatible naming the later file). Union columns are nullable: files
// that lack them read null. Every file must still pass Resolve against the result.
func Unify(files []NamedSchema, union bool, opts Options) ([]Field, error) {
	if len(files) == 0 {
		return nil, nil
	}
	table := append([]Field(nil), files[0].Fields...)
	if !union {
		return table, nil
	}
	for _, f := range files[1:] {
		for _, ff := range f.Fields {
			i, err := lookup(table, ff.Name, opts.CaseInsensitive)
			if err != nil {
				return nil, errf.Errorf("%w: %s: column %q", err, f.File, ff.Name)
			}
			if i < 0 {
				nf := ff
				nf.Nullable = true
				table = append(table, nf)
				continue
			}
			tf := &table[i]
			switch {
			case leafWidens(ff, *tf):
			case leafWidens(*tf, ff):
				tf.Type, tf.Children = ff.Type, ff.Children
			default:
				return nil, errf.Errorf("%w: %s: column %q is %s, earlier files have %s", ErrIncompatible, f.File, ff.Name, ff.Type, tf.Type)
			}
			tf.Nullable = tf.Nullable || ff.Nullable
		}
	}
	return table, nil
}

// leafWidens checks from → to including children, by resolving one against the other.
func leafWidens(from, to Field) bool {
	_, err := resolveField(to, from, "", to.Name, Options{})
	return err == nil
}
