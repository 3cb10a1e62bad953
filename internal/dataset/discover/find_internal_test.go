package discover

import (
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/listing"
)

// Test_pastLog: the folder's listing ends early only once the pages read hold log entries
// and end past the log, in ascending order.
func Test_pastLog(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want bool
	}{
		{[]string{"t/_delta_log/0.json"}, false},                                 // the log may go on
		{[]string{"t/_delta_log/0.json", "t/a=1/x.parquet"}, true},               // past the log
		{[]string{"t/_c/x.parquet", "t/a=1/x.parquet"}, false},                   // no log
		{[]string{"t/_delta_log/_sidecars/x.parquet", "t/a=1/x.parquet"}, false}, // no log entry
		{[]string{"t/b.parquet", "t/_delta_log/0.json", "t/c.parquet"}, false},   // out of order
		{[]string{"t/_delta_log/0.json", "t/_delta_log/1.json", "t/_delta_log0"}, true},
	} {
		objs := make([]listing.Object, len(c.keys))
		for i, k := range c.keys {
			objs[i].Key = k
		}
		if got := pastLog(objs, "t/_delta_log/*"); got != c.want {
			t.Errorf("%q: %v, want %v", c.keys, got, c.want)
		}
	}
}
