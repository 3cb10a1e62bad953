package main

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Just enough of the WebAssembly binary format (core spec §5.5) to attribute code bytes to
// functions: section sizes, the number of imported functions, the code section's bodies and
// the "name" custom section's function names (appendix 7.4.1). Everything else is skipped.

var errTruncated = errors.New("wasmsize: truncated module")

type module struct {
	sections map[string]int // section name → size in bytes (payload)
	importFn int            // imported functions come first in the function index space
	bodies   [][]byte       // code section, in order: function index importFn+i
	names    map[int]string // function index → name (empty when stripped)
}

var sectionNames = map[byte]string{
	1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
	7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount",
}

type reader struct {
	b   []byte
	off int
}

func (r *reader) u32() (uint32, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || v > 1<<32-1 {
		return 0, fmt.Errorf("%w: bad LEB128 at %d", errTruncated, r.off)
	}
	r.off += n
	return uint32(v), nil
}

func (r *reader) bytes(n uint32) ([]byte, error) {
	if uint64(r.off)+uint64(n) > uint64(len(r.b)) {
		return nil, fmt.Errorf("%w: %d bytes at %d", errTruncated, n, r.off)
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

func parse(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("wasmsize: not a wasm module")
	}
	m := &module{sections: map[string]int{}, names: map[int]string{}}
	r := &reader{b: b, off: 8}
	for r.off < len(b) {
		id := b[r.off]
		r.off++
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		payload, err := r.bytes(size)
		if err != nil {
			return nil, err
		}
		pr := &reader{b: payload}
		name := sectionNames[id]
		if id == 0 {
			cname, err := pr.name()
			if err != nil {
				return nil, err
			}
			name = "custom:" + cname
			if cname == "name" {
				if err := m.parseNames(pr); err != nil {
					return nil, err
				}
			}
		}
		m.sections[name] += int(size)
		switch id {
		case 2:
			err = m.parseImports(pr)
		case 10:
			err = m.parseCode(pr)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", name, err)
		}
	}
	return m, nil
}

func (m *module) parseImports(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for range n {
		if _, err := r.name(); err != nil {
			return err
		}
		if _, err := r.name(); err != nil {
			return err
		}
		kind, err := r.bytes(1)
		if err != nil {
			return err
		}
		switch kind[0] {
		case 0: // func: type index
			m.importFn++
			_, err = r.u32()
		case 1: // table: reftype + limits
			if _, err = r.bytes(1); err == nil {
				err = r.limits()
			}
		case 2: // memory: limits
			err = r.limits()
		case 3: // global: valtype + mut
			_, err = r.bytes(2)
		default:
			err = fmt.Errorf("unknown import kind %d", kind[0])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) limits() error {
	flag, err := r.bytes(1)
	if err != nil {
		return err
	}
	if _, err := r.u32(); err != nil {
		return err
	}
	if flag[0]&1 != 0 {
		_, err = r.u32()
	}
	return err
}

func (m *module) parseCode(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for range n {
		size, err := r.u32()
		if err != nil {
			return err
		}
		body, err := r.bytes(size)
		if err != nil {
			return err
		}
		m.bodies = append(m.bodies, body)
	}
	return nil
}

// parseNames reads subsection 1 (function names) of the name section.
func (m *module) parseNames(r *reader) error {
	for r.off < len(r.b) {
		id, err := r.bytes(1)
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		sub, err := r.bytes(size)
		if err != nil {
			return err
		}
		if id[0] != 1 {
			continue
		}
		sr := &reader{b: sub}
		n, err := sr.u32()
		if err != nil {
			return err
		}
		for range n {
			idx, err := sr.u32()
			if err != nil {
				return err
			}
			name, err := sr.name()
			if err != nil {
				return err
			}
			m.names[int(idx)] = name
		}
	}
	return nil
}
