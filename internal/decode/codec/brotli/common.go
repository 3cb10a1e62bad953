// Copyright 2015, Joe Tsai. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE.md file.

// Package brotli is the decoder half of github.com/dsnet/compress/brotli v0.0.1 (RFC 7932),
// vendored for pqscan's BROTLI page codec (internal/decode/codec). The code is the original's
// except for what makes the module start faster (BENCHMARKS.md "Where a cold start
// goes"): its lookup tables are built at the first NewReader (lutOnce) instead of in the
// package's init, which every start of the WebAssembly module paid (~17 ms of the Go runtime's
// start in Chromium) whether or not a file was BROTLI; its error values are struct literals
// (static data) instead of fmt.Sprintf'd at init; and the encoder, the writer and
// dsnet/compress/internal are left out (errors.go holds the parts of it the decoder uses).
package brotli

import "sync"

func errorf(c int, msg string) error {
	return Error{Code: c, Pkg: "brotli", Msg: msg}
}

// errWrap converts a lower-level Error to be one from this package.
// The replaceCode passed in will be used to replace the code for any errors
// with the Invalid code.
//
// For the Reader, set this to Corrupted.
func errWrap(err error, replaceCode int) error {
	if cerr, ok := err.(Error); ok {
		if IsInvalid(cerr) {
			cerr.Code = replaceCode
		}
		err = errorf(cerr.Code, cerr.Msg)
	}
	return err
}

var (
	errClosed    error = Error{Code: Closed, Pkg: "brotli"}
	errCorrupted error = Error{Code: Corrupted, Pkg: "brotli"}
	errInvalid   error = Error{Code: Invalid, Pkg: "brotli"}
	errUnaligned error = Error{Code: Invalid, Pkg: "brotli", Msg: "non-aligned bit buffer"}
)

var (
	reverseLUT [256]uint8
)

var lutOnce sync.Once

// loadLUTs builds the lookup tables once, before the first decode (NewReader, Reset).
func loadLUTs() { lutOnce.Do(initLUTs) }

func initLUTs() {
	initCommonLUTs()
	initPrefixLUTs()
	initContextLUTs()
	initDictLUTs()
}

func initCommonLUTs() {
	for i := range reverseLUT {
		b := uint8(i)
		b = (b&0xaa)>>1 | (b&0x55)<<1
		b = (b&0xcc)>>2 | (b&0x33)<<2
		b = (b&0xf0)>>4 | (b&0x0f)<<4
		reverseLUT[i] = b
	}
}

// neededBits computes the minimum number of bits needed to encode n elements.
func neededBits(n uint32) (nb uint) {
	for n--; n > 0; n >>= 1 {
		nb++
	}
	return
}

// reverseUint32 reverses all bits of v.
func reverseUint32(v uint32) (x uint32) {
	x |= uint32(reverseLUT[byte(v>>0)]) << 24
	x |= uint32(reverseLUT[byte(v>>8)]) << 16
	x |= uint32(reverseLUT[byte(v>>16)]) << 8
	x |= uint32(reverseLUT[byte(v>>24)]) << 0
	return x
}

// reverseBits reverses the lower n bits of v.
func reverseBits(v uint32, n uint) uint32 {
	return reverseUint32(v << (32 - n))
}

func allocUint8s(s []uint8, n int) []uint8 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint8, n, n*3/2)
}

func allocUint32s(s []uint32, n int) []uint32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint32, n, n*3/2)
}

func extendSliceUints32s(s [][]uint32, n int) [][]uint32 {
	if cap(s) >= n {
		return s[:n]
	}
	ss := make([][]uint32, n, n*3/2)
	copy(ss, s[:cap(s)])
	return ss
}

func extendDecoders(s []prefixDecoder, n int) []prefixDecoder {
	if cap(s) >= n {
		return s[:n]
	}
	ss := make([]prefixDecoder, n, n*3/2)
	copy(ss, s[:cap(s)])
	return ss
}
