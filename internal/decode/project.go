package decode

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// Project returns the top-level columns selected by paths, in the order first named. A path
// names a top-level column ("a") or a field nested in structs ("a.b.c"); the result keeps the
// enclosing structs with only the selected children. Empty paths select every column.
func (s *Schema) Project(paths []string) ([]*Column, error) {
	if len(paths) == 0 {
		return s.Columns, nil
	}
	var out []*Column
	index := map[string]int{}
	for _, p := range paths {
		parts := strings.Split(p, ".")
		top := findChild(s.Columns, parts[0])
		if top == nil {
			return nil, errf.Errorf("%w: no column %q (columns: %s)", ErrSchema, p, strings.Join(s.names(), ", "))
		}
		sub, err := projectPath(top, parts[1:], p)
		if err != nil {
			return nil, err
		}
		if i, ok := index[parts[0]]; ok {
			out[i] = mergeColumns(out[i], sub)
			continue
		}
		index[parts[0]] = len(out)
		out = append(out, sub)
	}
	return out, nil
}

func (s *Schema) names() []string {
	var n []string
	for _, c := range s.Columns {
		n = append(n, c.Field.Name)
	}
	return n
}

func findChild(cols []*Column, name string) *Column {
	for _, c := range cols {
		if c.Field.Name == name {
			return c
		}
	}
	return nil
}

// projectPath returns a copy of c keeping only the struct children along rest.
func projectPath(c *Column, rest []string, full string) (*Column, error) {
	if len(rest) == 0 {
		return c, nil
	}
	if c.Variant != nil {
		return nil, errf.Errorf("%w: %q: %s is a VARIANT, whose fields are not columns", ErrSchema, full, c.Field.Name)
	}
	if c.Kind != KindStruct {
		return nil, errf.Errorf("%w: %q: %s is not a struct", ErrSchema, full, c.Field.Name)
	}
	ch := findChild(c.Children, rest[0])
	if ch == nil {
		return nil, errf.Errorf("%w: no field %q in %q", ErrSchema, rest[0], full)
	}
	sub, err := projectPath(ch, rest[1:], full)
	if err != nil {
		return nil, err
	}
	cp := *c
	cp.Children = []*Column{sub}
	cp.Field.Type.Fields = []arrowipc.Field{sub.Field}
	return &cp, nil
}

// mergeColumns unions two projections of the same column, keeping schema order of children.
func mergeColumns(a, b *Column) *Column {
	if a.Kind != KindStruct || b.Kind != KindStruct || a == b || a.Variant != nil {
		return a
	}
	full := a.Node
	cp := *a
	cp.Children, cp.Field.Type.Fields = nil, nil
	// Walk the Parquet node's children to keep schema order.
	for _, n := range full.Children {
		ca, cb := findChild(a.Children, n.Name), findChild(b.Children, n.Name)
		var m *Column
		switch {
		case ca != nil && cb != nil:
			m = mergeColumns(ca, cb)
		case ca != nil:
			m = ca
		case cb != nil:
			m = cb
		default:
			continue
		}
		cp.Children = append(cp.Children, m)
		cp.Field.Type.Fields = append(cp.Field.Type.Fields, m.Field)
	}
	return &cp
}
