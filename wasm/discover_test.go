//go:build !wasm && !pqscan_lean

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/require"
)

// pushObject answers one object of handle h as a host does (pq_push_object).
func pushObject(t *testing.T, h int32, path, body string, found bool) int32 {
	t.Helper()
	pp, p := hostWrite(t, []byte(path)), hostWrite(t, []byte(body))
	f := int32(0)
	if found {
		f = 1
	}
	return pqPushObject(h, pp, int32(len(path)), p, int32(len(body)), f)
}

// Test_discover drives pq_open_discover through the exports: a listing page asked, the
// format so far in pq_snapshot before Done, the result after it, and a listing the engine
// cannot parse failing with the listing kind.
func Test_discover(t *testing.T) {
	fresh(t)
	opts := `{"url":"https://b.test/t/","list":true}`
	h := pqOpenDiscover(hostWrite(t, []byte(opts)), int32(len(opts)))
	require.True(t, h > 0, errMsg(t, 0))
	require.Equal(t, int32(protocol.NeedObjects), pqNext(h))
	var objs []discover.Object
	require.NoError(t, json.Unmarshal(result(t, pqObjects(h)), &objs))
	require.Equal(t, []discover.Object{{Kind: protocol.ObjectPage, Path: "https://b.test/?list-type=2&prefix=t%2F"}}, objs)
	require.Equal(t, `{"format":""}`, string(result(t, pqSnapshot(h))))
	page := `<ListBucketResult><Contents><Key>t/a=1/x.parquet</Key><Size>9</Size></Contents></ListBucketResult>`
	require.Equal(t, codeOK, pushObject(t, h, objs[0].Path, page, true))
	require.Equal(t, int32(protocol.Done), pqNext(h))
	var r discover.Result
	require.NoError(t, json.Unmarshal(result(t, pqSnapshot(h)), &r))
	require.Equal(t, "files", r.Format)
	require.Equal(t, []discover.File{{Key: "t/a=1/x.parquet", URL: "https://b.test/t/a=1/x.parquet", Size: 9}}, r.Files)
	require.Equal(t, codeOK, pqClose(h))

	h = pqOpenDiscover(hostWrite(t, []byte(opts)), int32(len(opts)))
	require.Equal(t, int32(protocol.NeedObjects), pqNext(h))
	require.Equal(t, codeOK, pushObject(t, h, objs[0].Path, "<ListBucketResult>", true))
	require.Equal(t, int32(protocol.Error), pqNext(h))
	require.Equal(t, int32(protocol.ErrListing), pqErrorKind(h))
	require.True(t, strings.Contains(errMsg(t, h), "malformed listing"), errMsg(t, h))

	bad := `{"url":"https://b.test/t/","bogus":1}`
	require.Equal(t, codeErr, pqOpenDiscover(hostWrite(t, []byte(bad)), int32(len(bad))))
	require.True(t, strings.Contains(errMsg(t, 0), `unknown field "bogus"`), errMsg(t, 0))
}
