package manifest

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// Every value a decoded manifest holds comes back with its Go type (an
// int64 stays an int64, not a float64 as encoding/json alone would give),
// and a file's values that are not typed values are refused.
func TestTypedValueRoundTrip(t *testing.T) {
	in := map[string]any{"i": int64(-7), "n": 3, "f": 0.1, "inf": math.Inf(1), "s": "5", "b": true, "z": nil,
		"a": []any{int64(1), "x", []any{}, map[string]any{}}, "m": map[string]any{"k": map[string]any{"deep": 1.5}}}
	tv, err := TypedValue(in)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(tv)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	out, err := UntypedValue(back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n%#v\n%#v", in, out)
	}
	again, _ := json.Marshal(tv)
	if string(again) != string(data) {
		t.Error("the encoding is not deterministic")
	}
	if _, err := TypedValue(map[string]any{"x": []string{"a"}}); err == nil || !strings.Contains(err.Error(), "[]string cannot be carried") {
		t.Errorf("[]string: %v", err)
	}
	for _, bad := range []string{`{"i":"1.5"}`, `{"s":1}`, `{"m":[["k"]]}`, `{"m":[["k",{"z":true}],["k",{"z":true}]]}`, `{"q":1}`, `{"s":"a","b":true}`, `[]`,
		strings.Repeat(`{"a":[`, 300) + `{"z":true}` + strings.Repeat(`]}`, 300)} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if _, err := UntypedValue(v); err == nil {
			t.Errorf("%.60s: no error", bad)
		}
	}
}
