package apiserver

import "math"

// deepCopyJSON copies a JSON-compatible value (maps, slices, strings,
// numbers, booleans, nil), with numbers as the API server's JSON decoder
// produces them: integers, and floats with a whole value (kubectl and Argo
// CD send 80.0 as 80), become int64. Validation mutates its copy (pruning,
// defaulting) and the model's objects stay untouched.
func deepCopyJSON(v any) any {
	out, _ := copyBody(v)
	return out
}

// copyBody is deepCopyJSON, also saying whether v holds a null anywhere
// (the API server's pruning of nulls has nothing to do otherwise).
func copyBody(v any) (out any, nulls bool) {
	var c copier
	return c.copy(v), c.nulls
}

type copier struct{ nulls bool }

func (c *copier) copy(v any) any {
	switch x := v.(type) {
	case nil:
		c.nulls = true
		return nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = c.copy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = c.copy(e)
		}
		return out
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case uint64:
		return float64(x)
	case float32:
		return wholeToInt(float64(x))
	case float64:
		return wholeToInt(x)
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	}
	return v
}

func wholeToInt(f float64) any {
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		return int64(f)
	}
	return f
}
