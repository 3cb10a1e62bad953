package delta

import (
	"fmt"
	"math"
	"testing"
)

func TestZeroPad(t *testing.T) {
	for _, v := range []int64{0, 7, -7, 123456789012, math.MaxInt64, math.MinInt64, -1} {
		for _, w := range []int{10, 20} {
			if got, want := zeroPad(v, w), fmt.Sprintf("%0*d", w, v); got != want {
				t.Fatalf("zeroPad(%d, %d) = %q, want %q", v, w, got, want)
			}
		}
	}
}
