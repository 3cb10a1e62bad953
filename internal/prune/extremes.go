package prune

import "math"

// Extremes is a running min/max of a column's non-null values, as SQL's min() and max()
// compute them: nulls are ignored, and NaN sorts above every other float (DuckDB's and
// Postgres's order), so one NaN makes the max NaN and the min is NaN only when every value
// is. It is fed from data (AddVector) and from statistics that are exact (AddBounds); the
// engine's Options.MinMax keeps one per scan.
type Extremes struct {
	Min, Max Value // valid when Has
	Has      bool  // some non-null, non-NaN value was seen
	NaN      bool  // some NaN was seen (Float only)
}

// Add folds one non-null value in.
func (e *Extremes) Add(v Value) {
	if v.Kind == Float && math.IsNaN(v.F) {
		e.NaN = true
		return
	}
	if !e.Has {
		e.Min, e.Max, e.Has = own(v), own(v), true
		return
	}
	if c, ok := Compare(v, e.Min); ok && c < 0 {
		e.Min = own(v)
	}
	if c, ok := Compare(v, e.Max); ok && c > 0 {
		e.Max = own(v)
	}
}

// AddBounds folds exact bounds in (a row group whose statistics give the attained min and
// max of every row).
func (e *Extremes) AddBounds(lo, hi Value) {
	e.Add(lo)
	e.Add(hi)
}

// Merge folds another running min/max in.
func (e *Extremes) Merge(o Extremes) {
	if o.Has {
		e.AddBounds(o.Min, o.Max)
	}
	e.NaN = e.NaN || o.NaN
}

// Result gives SQL's min() and max(): ok is false when no non-null value was seen (both
// are then NULL).
func (e *Extremes) Result() (lo, hi Value, ok bool) {
	switch {
	case e.Has && e.NaN:
		return e.Min, FloatValue(math.NaN()), true
	case e.Has:
		return e.Min, e.Max, true
	case e.NaN:
		return FloatValue(math.NaN()), FloatValue(math.NaN()), true
	}
	return Value{}, Value{}, false
}

// AddVector folds the first n values of v, a column of type t, in. v is checked as Filter
// checks it, so a malformed vector is an error, never a panic.
func (e *Extremes) AddVector(v *Vector, t ColumnType, n int) error {
	st, err := v.check(t, n)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if v.valid(i) {
			e.Add(v.value(t.Kind, st, i))
		}
	}
	return nil
}

// own copies a value's bytes: vectors and statistics alias buffers the engine reuses.
func own(v Value) Value {
	if v.B != nil {
		v.B = append([]byte{}, v.B...)
	}
	return v
}
