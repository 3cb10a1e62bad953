package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

func TestLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ memCap, live, want int64 }{
		{256 * mib, 0, 512 * mib},
		{256 * mib, 300 * mib, 512 * mib},
		{256 * mib, 800 * mib, 1000 * mib}, // a live heap over the cap: room above it
		{1024 * mib, 100 * mib, 2048 * mib},
	} {
		require.Equal(t, c.want, Limit(c.memCap, c.live), c)
	}
}

// Start sets the limit, keeps it after collections (the hook re-arms), and stop restores the
// one before.
func TestStartStop(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	stop := Start(64 << 20)
	require.Equal(t, int64(128<<20), debug.SetMemoryLimit(-1))
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer goroutine runs the hook
	}
	require.True(t, debug.SetMemoryLimit(-1) >= 128<<20, "limit after collections", debug.SetMemoryLimit(-1))
	stop()
	require.Equal(t, before, debug.SetMemoryLimit(-1))
	stop()
}

func TestUserLimitWins(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := debug.SetMemoryLimit(-1)
	Start(64 << 20)()
	require.Equal(t, before, debug.SetMemoryLimit(-1))
}
