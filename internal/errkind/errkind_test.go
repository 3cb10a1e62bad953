package errkind

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// Test_everyKindHasASentinel: each kind but ErrOther names its sentinel, the sentinels are
// distinct, and Of gives a wrapped sentinel's kind back.
func Test_everyKindHasASentinel(t *testing.T) {
	require.Equal(t, protocol.NumErrorKinds, len(sentinels))
	seen := map[error]bool{}
	for k := 1; k < protocol.NumErrorKinds; k++ {
		s := Sentinel(protocol.ErrorKind(k))
		require.True(t, s != nil, "kind", k, "has no sentinel")
		require.True(t, !seen[s], "kind", k, "shares its sentinel")
		seen[s] = true
		require.Equal(t, protocol.ErrorKind(k), Of(fmt.Errorf("at offset 4: %w", s)))
	}
}

func Test_Wrap(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind protocol.ErrorKind
		is   error
	}{
		{"corrupt", protocol.ErrCorrupt, scan.ErrCorrupt},
		{"delta version", protocol.ErrDeltaVersionNotFound, delta.ErrVersionNotFound},
		{"iceberg snapshot", protocol.ErrIcebergSnapshotNotFound, iceberg.ErrSnapshotNotFound},
		{"other", protocol.ErrOther, nil},
		{"unknown kind", protocol.ErrorKind(protocol.NumErrorKinds), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := errors.New("wazerohost: scan failed: the message")
			err := Wrap(base, tc.kind)
			require.Equal(t, base.Error(), err.Error())
			require.True(t, errors.Is(err, base))
			if tc.is != nil {
				require.True(t, errors.Is(err, tc.is))
			} else {
				require.True(t, err == base)
			}
		})
	}
	require.Equal(t, protocol.ErrUnsupportedFeature, Of(fmt.Errorf("v1.metadata.json: %w", iceberg.ErrUnsupportedFeature)))
	// A discovery marks its snapshot session's failures by format; a precise sentinel wins.
	require.Equal(t, protocol.ErrDeltaVersionNotFound, Of(fmt.Errorf("t/: %w%.0w", delta.ErrVersionNotFound, discover.ErrDelta)))
	require.Equal(t, protocol.ErrIceberg, Of(fmt.Errorf("t/: %w%.0w", errors.New("x"), discover.ErrIceberg)))
	require.Equal(t, protocol.ErrOther, Of(errors.New("plain")))
	require.Equal(t, protocol.ErrOther, Of(nil))
}
