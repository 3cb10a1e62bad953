package arrowipc

import (
	"encoding/binary"
	"slices"
	"unsafe"

	flatbuffers "github.com/google/flatbuffers/go"
)

// This file frames encapsulated IPC messages (format/Columnar.md, "Encapsulated message
// format"): 0xFFFFFFFF, the int32 metadata length, the Message flatbuffer padded to 8 bytes,
// then the body. The stream ends with 0xFFFFFFFF 0x00000000.

// WriteStream appends one complete IPC stream to dst: the schema message, a DictionaryBatch
// for every dictionary-encoded field (ids assigned in depth-first field order), one
// RecordBatch with cols (one Array per top-level field, all of length nrows), and the
// end-of-stream marker.
//
// It validates first (see Validate) and appends nothing on error. Buffers are copied from the
// Arrays as whole slices; dst is grown once to the final size. Safe for concurrent use as long
// as nobody writes to the Arrays meanwhile.
//
// A buffer may already lie in dst's spare capacity exactly where the stream puts its bytes (a
// producer that decoded a batch straight into the previous stream's body: scan's placement):
// it is then left where it is, not copied. A buffer that overlaps the bytes WriteStream writes
// anywhere else is not lost either: the stream is then written into a fresh slice, so that no
// source is overwritten before it is read.
func WriteStream(dst []byte, s *Schema, nrows int, cols []*Array) ([]byte, error) {
	if err := Validate(s, nrows, cols); err != nil {
		return dst, err
	}
	b := flatbuffers.NewBuilder(1024)
	schemaMsg := schemaMessage(b, s)

	dicts := collectDicts(nil, s.Fields, cols)
	dictMsgs := make([][]byte, len(dicts))
	dictBodies := make([]body, len(dicts))
	for i, d := range dicts {
		bd := &dictBodies[i]
		bd.add(&d.typ, d.dict)
		b.Reset()
		rb := recordBatch(b, int64(d.dict.Len), bd)
		b.StartObject(3)
		b.PrependInt64Slot(0, d.id, 0)
		b.PrependUOffsetTSlot(1, rb, 0)
		dictMsgs[i] = message(b, fbHeaderDictionaryBatch, b.EndObject(), bd.size())
	}

	var bd body
	for i := range s.Fields {
		bd.add(&s.Fields[i].Type, cols[i])
	}
	b.Reset()
	rb := recordBatch(b, int64(nrows), &bd)
	recMsg := message(b, fbHeaderRecordBatch, rb, bd.size())

	msgs := make([]framed, 0, 2+len(dicts))
	msgs = append(msgs, framed{schemaMsg, nil})
	for i := range dicts {
		msgs = append(msgs, framed{dictMsgs[i], &dictBodies[i]})
	}
	msgs = append(msgs, framed{recMsg, &bd})
	total := int64(8)
	for _, m := range msgs {
		total += msgSize(m.meta, m.bd)
	}
	if !appendSafe(dst, int(total), msgs) {
		dst = append(make([]byte, 0, len(dst)+int(total)), dst...)
	}
	dst = slices.Grow(dst, int(total))
	for _, m := range msgs {
		dst = appendMessage(dst, m.meta, m.bd)
	}
	return appendEOS(dst), nil
}

// framed is one message of a stream: its metadata and body (nil for none).
type framed struct {
	meta []byte
	bd   *body
}

// appendSafe reports whether appending msgs (total bytes) to dst in place leaves every body
// buffer intact until it is copied: true when dst must grow anyway (the stream is written to new
// memory) or when each buffer that overlaps the bytes to be written lies exactly where its own
// bytes go (appendMessage then keeps it without a copy).
func appendSafe(dst []byte, total int, msgs []framed) bool {
	if cap(dst)-len(dst) < total || total == 0 {
		return true
	}
	lo := addr(dst[len(dst) : len(dst)+1]) // the first byte written
	hi := lo + uintptr(total)
	at := lo
	for _, m := range msgs {
		at += uintptr(8 + align8(len(m.meta)))
		if m.bd == nil {
			continue
		}
		for _, p := range m.bd.bufs {
			if len(p) > 0 {
				if q := addr(p); q < hi && q+uintptr(len(p)) > lo && q != at {
					return false
				}
			}
			at += uintptr(align8(len(p)))
		}
	}
	return true
}

// addr is the address of b's first byte (len(b) > 0).
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// WriteSchema appends a stream holding only the schema message and the end-of-stream marker,
// so hosts can learn the schema before any data arrives.
func WriteSchema(dst []byte, s *Schema) ([]byte, error) {
	if err := validateSchema(s); err != nil {
		return dst, err
	}
	msg := schemaMessage(flatbuffers.NewBuilder(1024), s)
	dst = slices.Grow(dst, int(msgSize(msg, nil))+8)
	dst = appendMessage(dst, msg, nil)
	return appendEOS(dst), nil
}

// schemaMessage returns the finished Message flatbuffer for s. The result is a fresh copy,
// independent of b.
func schemaMessage(b *flatbuffers.Builder, s *Schema) []byte {
	w := schemaWriter{b: b}
	return message(b, fbHeaderSchema, w.schema(s), 0)
}

// message finishes a Message table around header and returns a copy of its bytes, so that b
// can be reset for the next message.
func message(b *flatbuffers.Builder, headerType byte, header flatbuffers.UOffsetT, bodyLen int64) []byte {
	b.StartObject(5)
	b.PrependInt16Slot(0, fbMetadataV5, 0)
	b.PrependByteSlot(1, headerType, 0)
	b.PrependUOffsetTSlot(2, header, 0)
	b.PrependInt64Slot(3, bodyLen, 0)
	b.Finish(b.EndObject())
	return slices.Clone(b.FinishedBytes())
}

// recordBatch builds a RecordBatch table: length, FieldNodes and Buffers (offsets relative to
// the body start, each buffer padded to 8 bytes), no compression.
func recordBatch(b *flatbuffers.Builder, length int64, bd *body) flatbuffers.UOffsetT {
	// Structs in a vector are prepended back to front.
	b.StartVector(16, len(bd.nodes), 8)
	for i := len(bd.nodes) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(bd.nodes[i].nulls)
		b.PrependInt64(bd.nodes[i].length)
	}
	nodes := b.EndVector(len(bd.nodes))

	offs := make([]int64, len(bd.bufs))
	var off int64
	for i, p := range bd.bufs {
		offs[i] = off
		off += int64(align8(len(p)))
	}
	b.StartVector(16, len(bd.bufs), 8)
	for i := len(bd.bufs) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(int64(len(bd.bufs[i])))
		b.PrependInt64(offs[i])
	}
	bufs := b.EndVector(len(bd.bufs))

	b.StartObject(5)
	b.PrependInt64Slot(0, length, 0)
	b.PrependUOffsetTSlot(1, nodes, 0)
	b.PrependUOffsetTSlot(2, bufs, 0)
	return b.EndObject()
}

// msgSize is the framed size of a message: prefix, padded metadata, body.
func msgSize(meta []byte, bd *body) int64 {
	n := int64(8 + align8(len(meta)))
	if bd != nil {
		n += bd.size()
	}
	return n
}

var zeros [8]byte

// appendMessage frames meta and appends it with bd's buffers (nil for no body).
func appendMessage(dst, meta []byte, bd *body) []byte {
	padded := align8(len(meta))
	dst = binary.LittleEndian.AppendUint32(dst, 0xFFFFFFFF)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(padded))
	dst = append(dst, meta...)
	dst = append(dst, zeros[:padded-len(meta)]...)
	if bd == nil {
		return dst
	}
	for _, p := range bd.bufs {
		if n := len(dst); len(p) > 0 && cap(dst)-n >= len(p) && addr(dst[n:n+1]) == addr(p) {
			dst = dst[:n+len(p)] // already in place (appendSafe checked the rest)
		} else {
			dst = append(dst, p...)
		}
		dst = append(dst, zeros[:align8(len(p))-len(p)]...)
	}
	return dst
}

// appendEOS appends the end-of-stream marker.
func appendEOS(dst []byte) []byte {
	return binary.LittleEndian.AppendUint64(dst, 0x00000000FFFFFFFF)
}
