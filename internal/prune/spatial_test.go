package prune

import (
	"encoding/json"
	"errors"
	"testing"
)

func Test_parseSpatial(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"intersects", "ST_Intersects(geometry, ST_MakeEnvelope(-1, 2.5, 3, 4))", "ST_Intersects(geometry, ST_MakeEnvelope(-1, 2.5, 3, 4))"},
		{"bbox", "g && st_makeenvelope(0, 0, 1, 1) AND x > 1", "g && ST_MakeEnvelope(0, 0, 1, 1) AND x > 1"},
		{"within", "NOT ST_Within(\"geo m\", ST_MakeEnvelope(170, -10, -170, 10))", "NOT (ST_Within(\"geo m\", ST_MakeEnvelope(170, -10, -170, 10)))"},
		{"contains", "ST_Contains(ST_MakeEnvelope(0, 0, 1, 1), a.b) OR y = 2", "ST_Within(a.b, ST_MakeEnvelope(0, 0, 1, 1)) OR y = 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.String(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			// Text and wire forms round-trip.
			e2, err := Parse(e.String())
			if err != nil || e2.String() != tc.want {
				t.Fatalf("reparse: %v %v", e2, err)
			}
			j, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			e3, err := ParseJSON(j)
			if err != nil || e3.String() != tc.want {
				t.Fatalf("json %s: %v %v", j, e3, err)
			}
		})
	}
	for _, bad := range []string{
		"ST_Intersects(g, ST_MakeEnvelope(0, 0, 1))",
		"ST_Intersects(g, ST_MakeEnvelope(0, 1, 1, 0))",
		"ST_Intersects(g, ST_MakeEnvelope(0, 'a', 1, 2))",
		"ST_Intersects(g, ST_MakeEnvelope(0, 0, 1e999, 2))",
		"ST_Intersects(g, 5)",
		"g && 5",
		"ST_Intersects(g, ST_MakeEnvelope(0, 0, 1, 1)",
	} {
		if _, err := Parse(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, bad := range []string{
		`{"op":"st_intersects","col":"g","envelope":[0,0,1]}`,
		`{"op":"st_intersects","col":"g","envelope":[0,1,1,0]}`,
		`{"op":"st_touches","col":"g","envelope":[0,0,1,1]}`,
		`{"op":"st_within","col":"g","envelope":[0,0,1,1],"value":1}`,
		`{"op":"=","col":"g","value":1,"envelope":[0,0,1,1]}`,
	} {
		if _, err := ParseJSON([]byte(bad)); !errors.Is(err, ErrJSON) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func Test_expandSpatial(t *testing.T) {
	e, err := Parse("id > 3 AND ST_Intersects(geometry, ST_MakeEnvelope(0.1, 0, 1, 1)) OR NOT geometry && ST_MakeEnvelope(170, 0, -170, 1)")
	if err != nil {
		t.Fatal(err)
	}
	cov := func(col string) (Covering, bool) {
		return Covering{"bbox.xmin", "bbox.ymin", "bbox.xmax", "bbox.ymax"}, col == "geometry"
	}
	got := ExpandSpatial(e, cov, func(string) bool { return false }).String()
	want := "id > 3 AND (bbox.xmax >= 0.09999999403953552 OR bbox.xmax IS NULL) AND (bbox.xmin <= 1 OR bbox.xmin IS NULL) AND (bbox.ymax >= 0 OR bbox.ymax IS NULL) AND (bbox.ymin <= 1 OR bbox.ymin IS NULL) AND ST_Intersects(geometry, ST_MakeEnvelope(0.1, 0, 1, 1)) OR NOT ((bbox.xmax >= 170 OR bbox.xmin <= -170 OR bbox.xmax IS NULL) AND (bbox.ymax >= 0 OR bbox.ymax IS NULL) AND (bbox.ymin <= 1 OR bbox.ymin IS NULL) AND geometry && ST_MakeEnvelope(170, 0, -170, 1))"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
