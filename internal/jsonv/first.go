package jsonv

// ParseFirst parses the first JSON value of b, after any whitespace, as encoding/json's
// Decoder.Decode reads one value of a stream: what follows it is not read (a reader of one
// document that took it with a Decoder accepts trailing bytes, and keeps doing so). n is the
// offset after the value.
func ParseFirst(b []byte) (v Value, n int, err error) {
	p := &parser{b: b}
	v = p.value(0)
	if p.err != "" {
		return Value{}, 0, &SyntaxError{Msg: p.err, Offset: p.off}
	}
	return v, p.i, nil
}
