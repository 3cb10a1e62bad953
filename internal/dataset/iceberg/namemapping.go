package iceberg

import (
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// PropNameMapping is the table property holding the name mapping (spec § Column Projection,
// Appendix C "Name Mapping Serialization"): the field ids of the columns of data files
// written without any (files of a table migrated to Iceberg), by the columns' names.
const PropNameMapping = "schema.name-mapping.default"

// NameMapping is the table's name mapping, nil when it has none.
func (m *Metadata) NameMapping() ([]tablescan.NameMapping, error) {
	js, ok := m.Properties[PropNameMapping]
	if !ok {
		return nil, nil
	}
	return ParseNameMapping([]byte(js))
}

// ParseNameMapping reads a name mapping: a JSON list of {"field-id", "names", "fields"},
// "fields" a list of the same (members matched exactly, as the spec spells them).
func ParseNameMapping(b []byte) ([]tablescan.NameMapping, error) {
	v, err := jsonv.Parse(b)
	if err != nil {
		return nil, errf.Errorf("%w: %s: %v", ErrMalformed, PropNameMapping, err)
	}
	if v.IsNull() {
		return nil, errf.Errorf("%w: %s is not a list", ErrMalformed, PropNameMapping)
	}
	// The list read as the member of a wrapper, so that Obj's checks and paths cover it.
	w := jsonv.Value{Kind: jsonv.Object, Keys: []string{PropNameMapping}, Vals: []jsonv.Value{v}}
	o := jsonv.NewObj(&w, "")
	out := readMappings(o.Objs(PropNameMapping))
	if err := o.Err(); err != nil {
		return nil, errf.Errorf("%w: %v", ErrMalformed, err)
	}
	return out, nil
}

func readMappings(objs []*jsonv.Obj) []tablescan.NameMapping {
	if objs == nil {
		return nil
	}
	out := make([]tablescan.NameMapping, len(objs))
	for i, o := range objs {
		out[i] = tablescan.NameMapping{FieldID: optInt(o, "field-id"), Names: o.Strs("names"), Fields: readMappings(o.Objs("fields"))}
	}
	return out
}
