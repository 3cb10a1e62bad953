package metacache

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleTail() *Tail {
	t := &Tail{Size: 1000, ETag: `"v1"`, Requests: 2, RoundTrips: 1}
	t.Add(900, bytes.Repeat([]byte{7}, 100))
	t.Add(500, []byte("index"))
	return t
}

func TestEntryRoundTrip(t *testing.T) {
	tl := sampleTail()
	b := Encode("k", MarshalTail(tl))
	p, ok := Decode("k", b)
	if !ok {
		t.Fatal("entry did not decode")
	}
	got, err := UnmarshalTail(p)
	if err != nil || got.Size != 1000 || got.ETag != `"v1"` || len(got.Pieces) != 2 || got.Pieces[0].Off != 500 || got.Requests != 2 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, ok := Decode("other", b); ok {
		t.Error("an entry of another key decoded")
	}
	for n := range len(b) {
		if _, ok := Decode("k", b[:n]); ok {
			t.Fatalf("a truncated entry (%d of %d bytes) decoded", n, len(b))
		}
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		if _, ok := Decode("k", c); ok {
			t.Fatalf("an entry with byte %d flipped decoded", i)
		}
	}
	other := bytes.Clone(b)
	other[4] = Version + 1
	if _, ok := Decode("k", other); ok {
		t.Error("an entry of another version decoded")
	}
}

func TestTailAdd(t *testing.T) {
	tl := &Tail{Size: 100}
	tl.Add(10, []byte("abc"))
	tl.Add(20, []byte("xyz"))
	tl.Add(12, []byte("CDEFGHIJ")) // overlaps the first, touches the second
	if len(tl.Pieces) != 1 || tl.Pieces[0].Off != 10 || string(tl.Pieces[0].Bytes) != "abCDEFGHIJxyz" {
		t.Fatalf("pieces %+v", tl.Pieces)
	}
	tl.Add(0, []byte("0"))
	if len(tl.Pieces) != 2 || tl.Pieces[0].Off != 0 || !tl.Covers(11, 23) || tl.Covers(9, 11) {
		t.Fatalf("pieces %+v", tl.Pieces)
	}
}

func TestDirLRU(t *testing.T) {
	dir := t.TempDir()
	d, err := NewDir(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if err := d.Put(k, bytes.Repeat([]byte(k), 100)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := d.Get("a"); len(b) != 100 { // a is now the most recent
		t.Fatalf("a: %d bytes", len(b))
	}
	// Make b older than a on filesystems with coarse times.
	old := mustStat(t, d.file("a")).ModTime().Add(-10e9)
	os.Chtimes(d.file("b"), old, old)
	if err := d.Put("c", bytes.Repeat([]byte("c"), 100)); err != nil {
		t.Fatal(err)
	}
	if b, _ := d.Get("b"); b != nil {
		t.Error("the least recently used entry was kept past the bound")
	}
	if b, _ := d.Get("a"); len(b) != 100 {
		t.Error("a recently used entry was evicted")
	}
	if err := d.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := d.Get("a"); b != nil {
		t.Error("a deleted entry was returned")
	}
	if err := d.Delete("missing"); err != nil {
		t.Error(err)
	}
}

func mustStat(t *testing.T, name string) os.FileInfo {
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// A folder of garbage, truncated entries and entries of another version reads as misses,
// and each bad value is removed.
func TestCacheIgnoresGarbage(t *testing.T) {
	dir := t.TempDir()
	d, _ := NewDir(dir, 0)
	c := New(d)
	c.PutTail("u", sampleTail())
	good, _ := d.Get(tailKey("u"))
	other := bytes.Clone(good)
	other[4] = Version + 1
	for name, v := range map[string][]byte{
		"garbage": []byte("not an entry at all"), "empty": {}, "truncated": good[:len(good)/2],
		"other-version": other, "other-key": Encode(tailKey("x"), MarshalTail(sampleTail())),
		"bad-payload":  Encode(tailKey("u"), []byte{1, 2, 3}),
		"no-validator": Encode(tailKey("u"), MarshalTail(&Tail{Size: 10, Pieces: []Piece{{0, []byte{1}}}})),
	} {
		if err := os.WriteFile(d.file(tailKey("u")), v, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := c.Tail("u"); got != nil {
			t.Errorf("%s: read as an entry %+v", name, got)
		}
		if _, err := os.Stat(d.file(tailKey("u"))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the bad value was not deleted", name)
		}
	}
	// Stray files in the folder are no entries and do not break eviction.
	os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("x"), 0o644)
	c.PutTail("u", sampleTail())
	if c.Tail("u") == nil || c.Err() != nil {
		t.Fatalf("the good entry was not read back (err %v)", c.Err())
	}
}

type failing struct{}

func (failing) Get(string) ([]byte, error) { return nil, errors.New("get failed") }
func (failing) Put(string, []byte) error   { return errors.New("quota exceeded") }
func (failing) Delete(string) error        { return nil }

func TestCacheSwallowsStoreErrors(t *testing.T) {
	c := New(failing{})
	c.PutTail("u", sampleTail())
	if c.Err() == nil || c.Tail("u") != nil {
		t.Fatal("a store error was not kept, or a failing store gave an entry")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(tailKey("u"), MarshalTail(sampleTail())))
	f.Add([]byte("PQMC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, ok := Decode(tailKey("u"), b); ok {
			UnmarshalTail(p)
		}
		if tl, err := UnmarshalTail(b); err == nil {
			for _, p := range tl.Pieces {
				if p.Off < 0 || p.Off+int64(len(p.Bytes)) > tl.Size {
					t.Fatalf("a piece outside the file: %d+%d of %d", p.Off, len(p.Bytes), tl.Size)
				}
			}
			if got, err := UnmarshalTail(MarshalTail(tl)); err != nil || len(got.Pieces) != len(tl.Pieces) {
				t.Fatalf("re-encoded tail does not decode: %v", err)
			}
		}
	})
}

// The JS host (jsbridge/src/metacache.js) writes entries byte for byte as Encode does, so a
// Node process and the CLI may share a folder; jsbridge/test/metacache.test.js checks the
// same bytes.
func TestEntryGolden(t *testing.T) {
	tl := &Tail{Size: 1000, ETag: `"v1"`, Requests: 2, RoundTrips: 1, Pieces: []Piece{{500, []byte("index")}, {900, bytes.Repeat([]byte{7}, 100)}}}
	got := hex.EncodeToString(Encode("tail\x00u", MarshalTail(tl)))
	want := "50514d430100060000007461696c00757a000000d00f042276312200040202e80705696e646578880e64" +
		strings.Repeat("07", 100) + "544eba44"
	if got != want {
		t.Fatalf("entry bytes\n got %s\nwant %s", got, want)
	}
}
