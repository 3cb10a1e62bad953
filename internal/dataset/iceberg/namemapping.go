package iceberg

import (
	"encoding/json"
	"fmt"

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

// ParseNameMapping reads a name mapping: a JSON list of {"field-id", "names", "fields"}.
func ParseNameMapping(b []byte) ([]tablescan.NameMapping, error) {
	var out []tablescan.NameMapping
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, PropNameMapping, err)
	}
	if out == nil {
		return nil, fmt.Errorf("%w: %s is not a list", ErrMalformed, PropNameMapping)
	}
	return out, nil
}
