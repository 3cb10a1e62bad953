// Package encoding decodes Parquet page payloads (already decompressed) into Go slices laid
// out the way Arrow buffers want them. It implements the value and level encodings of
// parquet-format Encodings.md:
//
//   - PLAIN: PlainFixed (INT32, INT64, INT96, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY as raw
//     little-endian bytes), PlainBool (into an LSB-first bitmap), PlainByteArray (into Arrow
//     int32 offsets + data).
//   - RLE/bit-packed hybrid: Hybrid ([]int32), HybridLevels ([]int16 levels), LengthPrefixed
//     (strips the 4-byte length of v1 level sections), RLEBool (RLE booleans into a bitmap),
//     DictIndices (RLE_DICTIONARY / PLAIN_DICTIONARY data pages, indices checked < dictLen).
//   - DELTA_BINARY_PACKED: DeltaInt32, DeltaInt64.
//   - DELTA_LENGTH_BYTE_ARRAY: DeltaLengthByteArray; DELTA_BYTE_ARRAY: DeltaByteArray.
//   - BYTE_STREAM_SPLIT: ByteStreamSplit, any value width.
//   - ALP (AlpEncoding.md): ALP, FLOAT and DOUBLE.
//   - Selective decoding (late materialization inside a page): PlainFixedSpans,
//     PlainByteArraySpans and DictIndicesSpans materialize only the values at given spans.
//
// Conventions shared by every function:
//   - n is the number of values to decode (the non-null values of the page). Decoders append to
//     the caller's dst (reuse it across pages to avoid allocation) and return the extended
//     slice; on error they return dst at its original length, never a partial result.
//   - The int result, where present, is the number of bytes of src used, so that callers can
//     find what follows (the values after v1 levels; the suffixes after DELTA_BYTE_ARRAY's
//     prefix lengths).
//   - Input is hostile: every length and count is checked against len(src) before allocating,
//     and malformed input returns an error wrapping one of the sentinels in errors.go; nothing
//     panics. Encodings that legitimately expand (RLE runs, zero-width delta miniblocks,
//     DELTA_BYTE_ARRAY prefixes) cannot be bounded by len(src) alone: for those the caller
//     bounds n (and DeltaByteArray takes an explicit output cap).
//   - Functions are pure and safe for concurrent use; they keep no state between calls.
//
// Non-goals: decompression (decode/codec), page headers (decode/format), null/level
// interpretation and Dremel assembly (decode). This package goes into the wasm module and uses
// only the standard library.
package encoding
