package apiserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEncodeJSONAsMarshal: the pooled encoding is json.Marshal's bytes
// (plus the newline), also for a buffer reused after a larger object.
func TestEncodeJSONAsMarshal(t *testing.T) {
	for _, v := range []any{
		map[string]any{"b": "<a&b>", "a": []any{int64(1), 2.5, nil, true}, "c": map[string]any{"z": "é", "y": ""}},
		map[string]any{"long": string(bytes.Repeat([]byte("x"), 4096))},
		map[string]any{"short": 1},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, release, err := encodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append(want, '\n')) {
			t.Errorf("encodeJSON = %s, want %s", got, want)
		}
		release()
	}
	if _, _, err := encodeJSON(map[string]any{"f": func() {}}); err == nil {
		t.Error("encodeJSON accepted a func")
	}
}
