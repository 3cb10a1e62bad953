package geo

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ratOrient is the orientation in rational arithmetic: the oracle of orient.
func ratOrient(ax, ay, bx, by, cx, cy float64) int {
	rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	sub := func(a, b float64) *big.Rat { return new(big.Rat).Sub(rat(a), rat(b)) }
	l := new(big.Rat).Mul(sub(ax, cx), sub(by, cy))
	r := new(big.Rat).Mul(sub(ay, cy), sub(bx, cx))
	return l.Cmp(r)
}

func Test_orientExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 40000; i++ {
		// Nearly collinear points at lon/lat and projected scales, where the filter fails.
		s := []float64{1, 180, 1e6, 1e-3}[i%4]
		ax, ay := r.Float64()*s, r.Float64()*s
		bx, by := r.Float64()*s, r.Float64()*s
		u := r.Float64()
		cx := ax + u*(bx-ax)
		cy := ay + u*(by-ay)
		if i%3 == 0 {
			cx = math.Nextafter(cx, math.Inf(1))
		}
		if got, want := orient(ax, ay, bx, by, cx, cy), ratOrient(ax, ay, bx, by, cx, cy); got != want {
			t.Fatalf("orient(%v %v %v %v %v %v) = %d, want %d", ax, ay, bx, by, cx, cy, got, want)
		}
	}
}

func FuzzOrient(f *testing.F) {
	f.Add(0.0, 0.0, 1.0, 1.0, 0.5, 0.5)
	f.Add(0.1, 0.2, 0.3, 0.6, 0.2, 0.4)
	f.Fuzz(func(t *testing.T, ax, ay, bx, by, cx, cy float64) {
		for _, v := range []float64{ax, ay, bx, by, cx, cy} {
			if math.IsNaN(v) || !InRange(v) {
				return
			}
		}
		if got, want := orient(ax, ay, bx, by, cx, cy), ratOrient(ax, ay, bx, by, cx, cy); got != want {
			t.Fatalf("got %d, want %d", got, want)
		}
	})
}
