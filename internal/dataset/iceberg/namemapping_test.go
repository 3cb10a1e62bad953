package iceberg

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/tablescan"
)

func Test_NameMapping(t *testing.T) {
	one, two := 1, 2
	tests := []struct {
		name  string
		props map[string]string
		want  []tablescan.NameMapping
		err   error
	}{
		{name: "no property", props: map[string]string{"x": "y"}},
		{name: "nested, one entry without an id", props: map[string]string{PropNameMapping: `[{"field-id":1,"names":["id","old_id"]},
			{"names":["gone"]},{"field-id":2,"names":["s"],"fields":[{"field-id":1,"names":["a"]}]}]`},
			want: []tablescan.NameMapping{{FieldID: &one, Names: []string{"id", "old_id"}}, {Names: []string{"gone"}},
				{FieldID: &two, Names: []string{"s"}, Fields: []tablescan.NameMapping{{FieldID: &one, Names: []string{"a"}}}}}},
		{name: "not JSON", props: map[string]string{PropNameMapping: `[{`}, err: ErrMalformed},
		{name: "not a list", props: map[string]string{PropNameMapping: `null`}, err: ErrMalformed},
		{name: "an id that is not a number", props: map[string]string{PropNameMapping: `[{"field-id":"1","names":["a"]}]`}, err: ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&Metadata{Properties: tc.props}).NameMapping()
			require.ErrorIs(t, err, tc.err)
			require.Equal(t, tc.want, got)
		})
	}
}
