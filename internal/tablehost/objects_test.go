package tablehost

import "testing"

func TestImmutableObject(t *testing.T) {
	for path, want := range map[string]bool{
		"_delta_log/00000000000000000007.json":                                 false, // a recreated table reuses it
		"_delta_log/_last_checkpoint":                                          false,
		"_delta_log/00000000000000000010.checkpoint.parquet":                   false,
		"_delta_log/0000000000000000007.json":                                  false, // 19 digits
		"_delta_log/00000000000000000007.crc":                                  false,
		"_delta_log/_sidecars/00000000000000000007.json":                       false,
		"metadata/version-hint.text":                                           false,
		"metadata/00003-6f1a.metadata.json":                                    false, // no UUID: a name a writer may reuse
		"metadata/00003-4d9e1bd1-e2bf-4f26-8f9b-b8771a05a3e1.metadata.json":    true,
		"metadata/00003-4d9e1bd1-e2bf-4f26-8f9b-b8771a05a3e1.gz.metadata.json": true,
		"metadata/v3.metadata.json":                                            false, // Hadoop-style: a re-created table reuses it
		"metadata/v3.gz.metadata.json":                                         false,
		"metadata/snap-123-1-abc.avro":                                         true,
		"https://other.example.com/t/metadata/abc-m0.avro":                     true,
		"part-00000.parquet":                                                   false,
	} {
		if got := immutableObject(path); got != want {
			t.Errorf("immutableObject(%q) = %v, want %v", path, got, want)
		}
	}
}
