package listing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func Test_Parse(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		keys      []string
		sizes     []int64
		etags     []string
		prefixes  []string
		truncated bool
		token     string
		keyCount  int
	}{
		{
			name:      "aws first page, namespace, quoted etags as entities",
			file:      "aws_page1.xml",
			keys:      []string{"events/event_date=2024-01-01/part-0.parquet", "events/event_date=2024-01-01/part-1.parquet"},
			sizes:     []int64{1048576, 2097152},
			etags:     []string{"9b2cf535f27731c974343645a3985328", "d41d8cd98f00b204e9800998ecf8427e-3"},
			truncated: true,
			token:     "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",
			keyCount:  2,
		},
		{
			name:     "aws last page, indented, literal quotes",
			file:     "aws_page2.xml",
			keys:     []string{"events/event_date=2024-01-02/_SUCCESS", "events/event_date=2024-01-02/part-0.parquet"},
			sizes:    []int64{0, 524288},
			etags:    []string{"d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661"},
			keyCount: 2,
		},
		{
			name:     "minio delimiter, entity-escaped key, numeric entity quotes",
			file:     "minio_delimiter.xml",
			keys:     []string{"tbl/README & notes <v2>.txt"},
			sizes:    []int64{12},
			etags:    []string{"e2fc714c4727ee9395f324cd2e7f331f"},
			prefixes: []string{"tbl/_delta_log/", "tbl/year=2024/"},
			keyCount: 3,
		},
		{
			name:     "gcs without namespace, unquoted etag",
			file:     "gcs_nonamespace.xml",
			keys:     []string{"dt=2024-01-01/a b+c.parquet"},
			sizes:    []int64{4096},
			etags:    []string{"5d41402abc4b2a76b9719d911017c592"},
			keyCount: -1,
		},
		{
			name:     "r2 with EncodingType url",
			file:     "r2_urlencoded.xml",
			keys:     []string{"letter=%2F%20%25f/pé.parquet"},
			sizes:    []int64{490},
			etags:    []string{"c4ca4238a0b923820dcc509a6f75849b"},
			keyCount: 1,
		},
		{name: "empty", file: "empty.xml", keyCount: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(readTestdata(t, tc.file))
			require.NoError(t, err)
			var keys, etags []string
			var sizes []int64
			for _, o := range p.Contents {
				keys, sizes, etags = append(keys, o.Key), append(sizes, o.Size), append(etags, o.ETag)
			}
			require.Equal(t, tc.keys, keys)
			require.Equal(t, tc.sizes, sizes)
			require.Equal(t, tc.etags, etags)
			require.Equal(t, tc.prefixes, p.CommonPrefixes)
			require.Equal(t, tc.truncated, p.IsTruncated)
			require.Equal(t, tc.token, p.NextContinuationToken)
			require.Equal(t, tc.keyCount, p.KeyCount)
		})
	}
}

func Test_Parse_errors(t *testing.T) {
	page1 := string(readTestdata(t, "aws_page1.xml"))
	tests := []struct {
		name string
		body string
		want error
		msg  string
	}{
		{name: "truncated without token", body: string(readTestdata(t, "truncated_no_token.xml")), want: ErrTruncated, msg: `"a.parquet"`},
		{name: "service error", body: string(readTestdata(t, "error_nosuchbucket.xml")), want: ErrService, msg: "NoSuchBucket"},
		{name: "body cut in half", body: page1[:len(page1)/2], want: ErrMalformed},
		{name: "empty body", body: "", want: ErrMalformed},
		{name: "html", body: "<html><body>404</body></html>", want: ErrMalformed, msg: "<html>"},
		{name: "not xml", body: `{"Contents":[]}`, want: ErrMalformed},
		{name: "negative size", body: `<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>`, want: ErrMalformed, msg: `"a"`},
		{name: "size not a number", body: `<ListBucketResult><Contents><Key>a</Key><Size>1e3</Size></Contents></ListBucketResult>`, want: ErrMalformed},
		{name: "no key", body: `<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>`, want: ErrMalformed},
		{name: "bad IsTruncated", body: `<ListBucketResult><IsTruncated>yes</IsTruncated></ListBucketResult>`, want: ErrMalformed},
		{name: "bad KeyCount", body: `<ListBucketResult><KeyCount>x</KeyCount></ListBucketResult>`, want: ErrMalformed},
		{name: "unknown encoding", body: `<ListBucketResult><EncodingType>base64</EncodingType></ListBucketResult>`, want: ErrMalformed},
		{name: "unclosed entity", body: `<ListBucketResult><Contents><Key>a &amp b</Key><Size>1</Size></Contents></ListBucketResult>`, want: ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.body))
			require.ErrorIs(t, err, tc.want)
			if tc.msg != "" {
				require.ErrorContains(t, err, tc.msg)
			}
		})
	}
}

func Test_Request_URL(t *testing.T) {
	tests := []struct {
		name  string
		req   Request
		token string
		want  string
	}{
		{
			name: "virtual hosted first page",
			req:  Request{Origin: "https://events.s3.amazonaws.com/", Prefix: "events/event_date=2024-01-01/"},
			want: "https://events.s3.amazonaws.com/?list-type=2&prefix=events%2Fevent_date%3D2024-01-01%2F",
		},
		{
			name:  "virtual hosted with token",
			req:   Request{Origin: "https://events.s3.amazonaws.com", Prefix: "a b"},
			token: "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",
			want:  "https://events.s3.amazonaws.com/?list-type=2&continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D&prefix=a%20b",
		},
		{
			name: "path style with delimiter, max keys and start-after",
			req:  Request{Origin: "http://localhost:9000", Bucket: "lake", Style: PathStyle, Prefix: "tbl/_delta_log/", Delimiter: "/", MaxKeys: 500, StartAfter: "tbl/_delta_log/00000000000000000010.checkpoint.parquet"},
			want: "http://localhost:9000/lake?list-type=2&delimiter=%2F&max-keys=500&prefix=tbl%2F_delta_log%2F&start-after=tbl%2F_delta_log%2F00000000000000000010.checkpoint.parquet",
		},
		{
			name:  "start-after only on the first page",
			req:   Request{Origin: "http://h", StartAfter: "k"},
			token: "t",
			want:  "http://h/?list-type=2&continuation-token=t&prefix=",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.req.URL(tc.token)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	for _, bad := range []Request{{}, {Origin: "http://h?x=1"}, {Origin: "http://h", Style: PathStyle}, {Origin: "http://h", Style: PathStyle, Bucket: "a/b"}} {
		_, err := bad.URL("")
		require.ErrorIs(t, err, ErrBadRequest, bad)
	}
}

func Test_Pager(t *testing.T) {
	p := NewPager(Request{Origin: "https://events.s3.amazonaws.com", Prefix: "events/"})
	u, done, err := p.Next()
	require.NoError(t, err)
	require.True(t, !done)
	require.Equal(t, "https://events.s3.amazonaws.com/?list-type=2&prefix=events%2F", u)
	_, err = p.Push(readTestdata(t, "aws_page1.xml"))
	require.NoError(t, err)
	u, done, err = p.Next()
	require.NoError(t, err)
	require.True(t, !done)
	require.True(t, strings.Contains(u, "continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D"), u)
	_, err = p.Push(readTestdata(t, "aws_page2.xml"))
	require.NoError(t, err)
	_, done, err = p.Next()
	require.NoError(t, err)
	require.True(t, done)
	require.Equal(t, 2, p.Pages())
	require.Equal(t, 4, len(p.Objects()))
	require.Equal(t, "events/event_date=2024-01-02/part-0.parquet", p.Objects()[3].Key)
}

func Test_Pager_errors(t *testing.T) {
	page1 := readTestdata(t, "aws_page1.xml")
	t.Run("token repeats", func(t *testing.T) {
		p := NewPager(Request{Origin: "http://h"})
		_, _, _ = p.Next()
		_, err := p.Push(page1)
		require.NoError(t, err)
		_, _, _ = p.Next()
		_, err = p.Push(page1)
		require.ErrorIs(t, err, ErrLoop)
		require.True(t, p.Done())
	})
	t.Run("page limit", func(t *testing.T) {
		p := NewPager(Request{Origin: "http://h"})
		p.MaxPages = 1
		_, _, _ = p.Next()
		_, err := p.Push(page1)
		require.ErrorIs(t, err, ErrTooManyPages)
	})
	t.Run("push without next", func(t *testing.T) {
		p := NewPager(Request{Origin: "http://h"})
		_, err := p.Push(page1)
		require.ErrorIs(t, err, ErrBadRequest)
	})
	t.Run("malformed page names the page", func(t *testing.T) {
		p := NewPager(Request{Origin: "http://h", Prefix: "x/"})
		_, _, _ = p.Next()
		_, err := p.Push([]byte("<ListBucketResult>"))
		require.ErrorIs(t, err, ErrMalformed)
		require.ErrorContains(t, err, `page 1 (http://h prefix "x/")`)
		_, done, _ := p.Next()
		require.True(t, done)
	})
	t.Run("truncated without token", func(t *testing.T) {
		p := NewPager(Request{Origin: "http://h"})
		_, _, _ = p.Next()
		_, err := p.Push(readTestdata(t, "truncated_no_token.xml"))
		require.ErrorIs(t, err, ErrTruncated)
	})
}
