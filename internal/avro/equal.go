package avro

import "bytes"

// Equal reports whether two decoded values (of the types Decode gives: nil, bool, int64,
// float32, float64, []byte, string, []any, map[string]any) are equal as reflect.DeepEqual
// compares them: a NaN equals nothing, a nil slice or map differs from an empty one. A value
// of another type equals nothing. Without reflect: the wasm module's size budget has no
// room for it.
func Equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case float32:
		b, ok := b.(float32)
		return ok && a == b
	case float64:
		b, ok := b.(float64)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case []byte:
		b, ok := b.([]byte)
		return ok && (a == nil) == (b == nil) && bytes.Equal(a, b)
	case []any:
		b, ok := b.([]any)
		if !ok || (a == nil) != (b == nil) || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !Equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		return ok && EqualMaps(a, b)
	}
	return false
}

// EqualMaps is Equal for two records or maps.
func EqualMaps(a, b map[string]any) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}
