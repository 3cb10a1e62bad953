package scan

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fill sets every settable field of v, recursively, from rnd: in dense mode every value is
// non-empty (so each field's member is written, omitempty or not), otherwise about a third
// of the values are zero, nil or empty, to reach the omitempty and null cases.
func fill(v reflect.Value, rnd *rand.Rand, dense bool) {
	zero := !dense && rnd.IntN(3) == 0
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !zero {
			bits := v.Type().Bits() - 1
			n := 1 + rnd.Int64N(int64(1)<<rnd.IntN(bits)) // 1 up to the type's maximum
			if rnd.IntN(4) == 0 {
				n = -n
			}
			v.SetInt(n)
		}
	case reflect.Uint8:
		v.SetUint(uint64(rnd.IntN(256)))
	case reflect.String:
		if !zero {
			pool := []string{"a", "row group 3: skipped by bloom filter", `q"u\o<t>e&`, "tab\there\n", "é漢🙂", "\u2028", "bad\xff", "x.y.z", "RRPPLS"}
			v.SetString(pool[rnd.IntN(len(pool))])
		}
	case reflect.Float64:
		if !zero {
			switch rnd.IntN(4) {
			case 0:
				v.SetFloat(rnd.Float64() * 1000)
			case 1:
				v.SetFloat(math.Float64frombits(rnd.Uint64()&^(0x7ff<<52) | uint64(rnd.IntN(0x7ff))<<52)) // finite, any exponent
			case 2:
				v.SetFloat(float64(rnd.IntN(100000)) / 1000)
			default:
				v.SetFloat(-rnd.ExpFloat64() * 1e-7)
			}
		}
	case reflect.Slice:
		if zero {
			if rnd.IntN(2) == 0 {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		n := 1 + rnd.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(s.Index(i), rnd, dense)
		}
		v.Set(s)
	case reflect.Map:
		if zero {
			if rnd.IntN(2) == 0 {
				v.Set(reflect.MakeMap(v.Type()))
			}
			return
		}
		m := reflect.MakeMap(v.Type())
		for i, n := 0, 1+rnd.IntN(4); i < n; i++ {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, rnd, true)
			fill(e, rnd, dense)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				fill(f, rnd, dense)
			}
		}
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Struct && !zero {
			p := reflect.New(v.Type().Elem())
			fill(p.Elem(), rnd, dense)
			v.Set(p)
		}
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

// TestReportJSONAsMarshal: Report.AppendJSON writes what json.Marshal writes, for reports with
// every field set (dense) and with random fields zero, nil or empty. A field added to Report
// (or to the types inside it) and not to AppendJSON fails the dense cases.
func TestReportJSONAsMarshal(t *testing.T) {
	for seed := uint64(0); seed < 3000; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 1))
		var r Report
		fill(reflect.ValueOf(&r).Elem(), rnd, seed%3 == 0)
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !bytes.Equal(got[6:], want) {
			t.Fatalf("seed %d:\n got  %s\n want %s", seed, got[6:], want)
		}
	}
	var zero Report
	want, _ := json.Marshal(zero)
	if got, _ := zero.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("zero report:\n got  %s\n want %s", got, want)
	}
}

// A phase time JSON cannot hold fails AppendJSON as it fails Marshal.
func TestReportJSONNonFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := Report{Phases: map[string]float64{"decode": 1, "filter": x}}
		if _, err := json.Marshal(r); err == nil {
			t.Fatalf("Marshal accepted %v", x)
		}
		if b, err := r.AppendJSON([]byte("p")); err == nil || string(b) != "p" {
			t.Fatalf("AppendJSON with phase %v: %q, %v; want an error and the input back", x, b, err)
		}
	}
}

func TestFileInfoJSONAsMarshal(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 2))
		fi := &FileInfo{}
		fill(reflect.ValueOf(fi).Elem(), rnd, seed%3 == 0)
		want, err := json.Marshal(fi)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("seed %d:\n got  %s\n want %s", seed, got, want)
		}
	}
	var nilInfo *FileInfo
	want, _ := json.Marshal(nilInfo)
	if got := nilInfo.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("nil: got %s, want %s", got, want)
	}
}

func FuzzReportJSON(f *testing.F) {
	f.Add(uint64(1), true)
	f.Add(uint64(2), false)
	f.Fuzz(func(t *testing.T, seed uint64, dense bool) {
		var r Report
		fill(reflect.ValueOf(&r).Elem(), rand.New(rand.NewPCG(seed, 3)), dense)
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
		}
	})
}
