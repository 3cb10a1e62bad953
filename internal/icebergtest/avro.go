// Package icebergtest writes Iceberg tables and their Avro files for tests and benchmarks
// (native only): an Avro encoder for what internal/avro decodes, and a generator of
// partitioned tables whose rows are known by construction.
package icebergtest

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pqscan/pqscan/internal/avro"
)

// Container writes an Avro container file (uncompressed) of values with af's schema and
// header metadata (avro.Decode's view: af.Values are ignored).
func Container(af *avro.File, values []any) ([]byte, error) { return ContainerCodec(af, values, "") }

// ContainerCodec is Container with its one block compressed by codec: "" or "null",
// "deflate", "snappy" (with the CRC-32 of the decoded bytes after it) or "zstandard" (a
// streaming writer's frame, without its decoded size), as Avro's specification lays them out.
func ContainerCodec(af *avro.File, values []any, codec string) ([]byte, error) {
	var body bytes.Buffer
	for _, v := range values {
		if err := encode(&body, af.Schema, v, 0); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	out.WriteString("Obj\x01")
	meta := map[string][]byte{}
	for k, v := range af.Meta {
		meta[k] = v
	}
	if codec == "" {
		codec = "null"
	}
	meta["avro.codec"] = []byte(codec)
	block, err := compress(codec, body.Bytes())
	if err != nil {
		return nil, err
	}
	avroLong(&out, int64(len(meta)))
	for k, v := range meta {
		avroBytes(&out, []byte(k))
		avroBytes(&out, v)
	}
	avroLong(&out, 0)
	sync := []byte("0123456789abcdef")
	out.Write(sync)
	avroLong(&out, int64(len(values)))
	avroLong(&out, int64(len(block)))
	out.Write(block)
	out.Write(sync)
	return out.Bytes(), nil
}

func compress(codec string, b []byte) ([]byte, error) {
	var out bytes.Buffer
	switch codec {
	case "null":
		return b, nil
	case "deflate":
		w, err := flate.NewWriter(&out, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		w.Write(b)
		w.Close()
	case "snappy":
		return binary.BigEndian.AppendUint32(snappy.Encode(nil, b), crc32.ChecksumIEEE(b)), nil
	case "zstandard":
		w, err := zstd.NewWriter(&out)
		if err != nil {
			return nil, err
		}
		w.Write(b)
		w.Close()
	default:
		return nil, fmt.Errorf("avro codec %q", codec)
	}
	return out.Bytes(), nil
}

func avroLong(w *bytes.Buffer, n int64) {
	w.Write(binary.AppendUvarint(nil, uint64(n<<1^n>>63)))
}

func avroBytes(w *bytes.Buffer, b []byte) {
	avroLong(w, int64(len(b)))
	w.Write(b)
}

// encode writes v in Avro's binary encoding of s; a union's branch is the first whose
// kind takes v's Go type (as avro.Decode decodes it).
func encode(w *bytes.Buffer, s *avro.Schema, v any, depth int) error {
	if depth > avro.MaxDepth {
		return fmt.Errorf("too deep")
	}
	switch s.Kind {
	case avro.Null:
	case avro.Boolean:
		if v.(bool) {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
	case avro.Int, avro.Long:
		avroLong(w, v.(int64))
	case avro.Float:
		w.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v.(float32))))
	case avro.Double:
		w.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.(float64))))
	case avro.Bytes:
		avroBytes(w, v.([]byte))
	case avro.String:
		avroBytes(w, []byte(v.(string)))
	case avro.Fixed:
		w.Write(v.([]byte))
	case avro.Enum:
		for i, sym := range s.Symbols {
			if sym == v.(string) {
				avroLong(w, int64(i))
				return nil
			}
		}
		return fmt.Errorf("enum symbol %v", v)
	case avro.Record:
		m := v.(map[string]any)
		for _, f := range s.Fields {
			if err := encode(w, f.Type, m[f.Name], depth+1); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	case avro.Array:
		if items := v.([]any); len(items) > 0 {
			avroLong(w, int64(len(items)))
			for _, e := range items {
				if err := encode(w, s.Items, e, depth+1); err != nil {
					return err
				}
			}
		}
		avroLong(w, 0)
	case avro.Map:
		if m := v.(map[string]any); len(m) > 0 {
			avroLong(w, int64(len(m)))
			for k, e := range m {
				avroBytes(w, []byte(k))
				if err := encode(w, s.Items, e, depth+1); err != nil {
					return err
				}
			}
		}
		avroLong(w, 0)
	case avro.Union:
		for i, br := range s.Branches {
			if takes(br.Kind, v) {
				avroLong(w, int64(i))
				return encode(w, br, v, depth+1)
			}
		}
		return fmt.Errorf("no union branch for %T", v)
	default:
		return fmt.Errorf("kind %d", s.Kind)
	}
	return nil
}

// takes reports whether a schema of kind k encodes the decoded value v.
func takes(k avro.Kind, v any) bool {
	switch v.(type) {
	case nil:
		return k == avro.Null
	case bool:
		return k == avro.Boolean
	case int64:
		return k == avro.Int || k == avro.Long
	case float32:
		return k == avro.Float
	case float64:
		return k == avro.Double
	case []byte:
		return k == avro.Bytes || k == avro.Fixed
	case string:
		return k == avro.String || k == avro.Enum
	case map[string]any:
		return k == avro.Record || k == avro.Map
	case []any:
		return k == avro.Array
	}
	return false
}
