package discover_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/discover"
)

// FuzzParseTime: LastModified texts never panic, and RFC 3339 ones agree with package time.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-01-02T03:04:05.678Z", "2009-10-12T17:50:30Z", "1969-12-31T23:59:59.9+01:30", "2024-02-30T00:00:00Z", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := discover.ParseTime(s)
		if tm, err := time.Parse(time.RFC3339Nano, s); err == nil && tm.Year() > 0 && tm.Year() < 10000 && len(s) >= 20 && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[4] == '-' && s[7] == '-' && strings.IndexByte(".Z+-", s[19]) >= 0 {
			if want := tm.UnixMilli(); got != want && tm.Second() != 60 {
				t.Errorf("%q: %d, time.Parse %d", s, got, want)
			}
		}
	})
}

// FuzzListingPages: any page bodies, as the listing of a folder and as its probes, end in
// a result or an error, never a panic or a hang.
func FuzzListingPages(f *testing.F) {
	f.Add("<ListBucketResult><Contents><Key>t/a.parquet</Key><Size>4</Size></Contents></ListBucketResult>", "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>x</NextContinuationToken></ListBucketResult>")
	f.Add("<Error><Code>x</Code></Error>", "<ListBucketResult><Contents><Key>t/_delta_log/0.json</Key><Size>1</Size></Contents></ListBucketResult>")
	f.Fuzz(func(t *testing.T, folder, probe string) {
		h := &memHost{origin: origin, root: "t/", objs: map[string][]byte{}, pages: map[string]string{"prefix=t%2F_": probe, "prefix=t%2Fm": probe, "prefix=t%2F": folder}}
		_, _ = discover.Run(context.Background(), discover.Options{URL: origin + "/t/", MaxPages: 5}, h, h)
	})
}

// FuzzURL: any URL and glob text ends in a result or an error.
func FuzzURL(f *testing.F) {
	f.Add("https://bucket.test/t/a=*/x[0-9].parquet", true, false)
	f.Add("http://h:1/b/%zz/", false, true)
	f.Fuzz(func(t *testing.T, u string, glob, pathStyle bool) {
		h := hiveHost()
		h.lists = true
		_, _ = discover.Run(context.Background(), discover.Options{URL: u, Glob: glob, PathStyle: pathStyle, MaxPages: 3}, h, h)
	})
}
