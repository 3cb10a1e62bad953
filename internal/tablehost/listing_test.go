package tablehost

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_listFolderStopsAtLog: the folder walk ends at the first page past _delta_log/ only
// when the keys came in ascending order. A service that lists out of order (here: a log
// entry on the page after one that seemed past the log) is walked to the end, so the log's
// entries are all there (a snapshot missing a commit would be a wrong table).
func Test_listFolderStopsAtLog(t *testing.T) {
	page := func(token string, truncated bool, keys ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
		if truncated {
			fmt.Fprintf(&b, `<IsTruncated>true</IsTruncated><NextContinuationToken>%s</NextContinuationToken>`, token)
		}
		for _, k := range keys {
			fmt.Fprintf(&b, `<Contents><Key>%s</Key><Size>10</Size></Contents>`, k)
		}
		b.WriteString(`</ListBucketResult>`)
		return b.String()
	}
	for _, c := range []struct {
		name  string
		pages []string
		want  int   // log entries found
		reqs  int64 // listing pages requested
	}{
		{name: "ascending: stops past the log", want: 2, reqs: 1, pages: []string{
			page("t1", true, "t/_delta_log/00000000000000000000.json", "t/_delta_log/00000000000000000001.json", "t/x=1/f.parquet"),
			page("", false, "t/x=2/f.parquet"),
		}},
		{name: "out of order: walked to the end", want: 3, reqs: 2, pages: []string{
			page("t1", true, "t/_delta_log/00000000000000000001.json", "t/_delta_log/00000000000000000000.json", "t/x=1/f.parquet"),
			page("", false, "t/_delta_log/00000000000000000002.json"),
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reqs atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reqs.Add(1)
				i := 0
				if r.URL.Query().Get("continuation-token") == "t1" {
					i = 1
				}
				w.Write([]byte(c.pages[i]))
			}))
			defer srv.Close()
			tab := &Table{}
			fl, err := tab.listFolder(context.Background(), srv.URL+"/t/", true)
			require.NoError(t, err)
			require.Equal(t, c.want, len(fl.deltaLog()))
			require.Equal(t, c.reqs, reqs.Load())
		})
	}
}
