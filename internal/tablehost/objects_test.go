package tablehost

import "testing"

func TestImmutableObject(t *testing.T) {
	for path, want := range map[string]bool{
		"_delta_log/00000000000000000007.json":               false, // a recreated table reuses it
		"_delta_log/_last_checkpoint":                        false,
		"_delta_log/00000000000000000010.checkpoint.parquet": false,
		"_delta_log/0000000000000000007.json":                false, // 19 digits
		"_delta_log/00000000000000000007.crc":                false,
		"_delta_log/_sidecars/00000000000000000007.json":     false,
		"metadata/version-hint.text":                         false,
		"metadata/00003-6f1a.metadata.json":                  true,
		"metadata/snap-123-1-abc.avro":                       true,
		"https://other.example.com/t/metadata/abc-m0.avro":   true,
		"part-00000.parquet":                                 false,
	} {
		if got := immutableObject(path); got != want {
			t.Errorf("immutableObject(%q) = %v, want %v", path, got, want)
		}
	}
}
