package discover_test

import (
	"context"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/discover"
)

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
