package metacache

import (
	"encoding/hex"
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
)

func samplePlan() *Plan {
	return &Plan{Size: 1 << 40, ETag: `"v2"`, LastModified: "Wed, 01 Jan 2026 00:00:00 GMT",
		Ranges: []httprange.Range{{Off: 4, Len: 18727}, {Off: 1 << 39, Len: 1}}}
}

// The JS host writes plan entries byte for byte as MarshalPlan does (jsbridge/test/
// metacache.test.js checks the same bytes).
func TestPlanGolden(t *testing.T) {
	const want = "50514d43010009000000706c616e00750066703500000080808080804004227632221d" +
		"5765642c203031204a616e20323032362030303a30303a303020474d540208a7920180808080802001656b36b3"
	got := hex.EncodeToString(Encode(planKey("u", "fp"), MarshalPlan(samplePlan())))
	if got != want {
		t.Fatalf("entry bytes\n got %s\nwant %s", got, want)
	}
}

func TestUnmarshalPlan(t *testing.T) {
	good := MarshalPlan(samplePlan())
	p, err := UnmarshalPlan(good)
	if err != nil || p.Size != 1<<40 || p.ETag != `"v2"` || len(p.Ranges) != 2 || p.Ranges[1] != (httprange.Range{Off: 1 << 39, Len: 1}) {
		t.Fatalf("got %+v, %v", p, err)
	}
	for n := range len(good) {
		if _, err := UnmarshalPlan(good[:n]); err == nil {
			t.Fatalf("a plan truncated to %d of %d bytes decoded", n, len(good))
		}
	}
	for _, c := range []struct {
		name string
		p    *Plan
	}{
		{name: "empty range", p: &Plan{Size: 100, ETag: "e", Ranges: []httprange.Range{{Off: 10, Len: 0}}}},
		{name: "past the end", p: &Plan{Size: 100, ETag: "e", Ranges: []httprange.Range{{Off: 90, Len: 11}}}},
		{name: "negative offset", p: &Plan{Size: 100, ETag: "e", Ranges: []httprange.Range{{Off: -1, Len: 1}}}},
		{name: "longer than the file", p: &Plan{Size: 100, ETag: "e", Ranges: []httprange.Range{{Off: 1, Len: 1 << 62}}}},
		{name: "no size", p: &Plan{Size: 0, ETag: "e"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := UnmarshalPlan(MarshalPlan(c.p)); err == nil {
				t.Error("decoded")
			}
		})
	}
	if _, err := UnmarshalPlan(append(good, 0)); err == nil {
		t.Error("trailing bytes decoded")
	}
	// A count larger than the payload.
	huge := MarshalPlan(&Plan{Size: 100})
	huge[len(huge)-1] = 100
	if _, err := UnmarshalPlan(huge); err == nil {
		t.Error("a count of 100 ranges in no bytes decoded")
	}
}

func TestCachePlan(t *testing.T) {
	d, err := NewDir(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := New(d)
	if c.Plan("u", "fp") != nil {
		t.Fatal("a plan in an empty store")
	}
	c.PutPlan("u", "fp", samplePlan())
	if p := c.Plan("u", "fp"); p == nil || len(p.Ranges) != 2 {
		t.Fatalf("got %+v", p)
	}
	if c.Plan("u", "other") != nil || c.Plan("v", "fp") != nil {
		t.Error("a plan under another key")
	}
	// A plan entry that is intact but does not decode is a miss, and deleted.
	key := planKey("u", "bad")
	if err := c.store.Put(key, Encode(key, []byte{1, 2, 3})); err != nil {
		t.Fatal(err)
	}
	if c.Plan("u", "bad") != nil {
		t.Error("a malformed plan")
	}
	if b, _ := c.store.Get(key); b != nil {
		t.Error("the malformed plan is still stored")
	}
	var nilc *Cache
	nilc.PutPlan("u", "fp", samplePlan())
	if nilc.Plan("u", "fp") != nil {
		t.Error("a nil Cache has a plan")
	}
}

func FuzzUnmarshalPlan(f *testing.F) {
	f.Add(MarshalPlan(samplePlan()))
	f.Add(MarshalPlan(&Plan{Size: 10, LastModified: "x", Ranges: []httprange.Range{{Off: 0, Len: 10}}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := UnmarshalPlan(b)
		if err != nil {
			return
		}
		for _, r := range p.Ranges {
			if r.Off < 0 || r.Len <= 0 || r.End() > p.Size {
				t.Fatalf("a range outside the file: %+v of %d", r, p.Size)
			}
		}
		q, err := UnmarshalPlan(MarshalPlan(p))
		if err != nil || q.Size != p.Size || q.ETag != p.ETag || q.LastModified != p.LastModified || len(q.Ranges) != len(p.Ranges) {
			t.Fatalf("re-encoded plan: %+v, %v", q, err)
		}
		for i := range q.Ranges {
			if q.Ranges[i] != p.Ranges[i] {
				t.Fatalf("range %d: %+v, was %+v", i, q.Ranges[i], p.Ranges[i])
			}
		}
	})
}
