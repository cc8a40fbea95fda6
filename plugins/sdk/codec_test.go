package sdk

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestCodecRoundTrip(t *testing.T) {
	body := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a", "namespace": "ns", "labels": map[string]any{}},
		"data": map[string]any{
			"int": int64(-42), "big": int64(1 << 62), "float": 0.25, "t": true, "f": false, "nil": nil,
			"list": []any{"x", int64(1), []any{}, map[string]any{"k": "ü"}}, "empty": "",
		},
	}
	req := &Request{DefaultNamespace: "apps", Config: []byte(`{"a":1}`),
		Objects: []Object{{File: "a.yaml", Line: 9, Context: true, Body: body}, {File: "b.yaml", Body: map[string]any{"kind": "X"}}}}
	data, err := EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Objects[0].Body, body) {
		t.Errorf("body:\n got %#v\nwant %#v", got.Objects[0].Body, body)
	}
	o := got.Objects[0]
	if o.File != "a.yaml" || o.Line != 9 || !o.Context || o.Kind != "ConfigMap" || o.Namespace != "ns" || o.Name != "a" {
		t.Errorf("object %+v", o)
	}
	if got.DefaultNamespace != "apps" || string(got.Config) != `{"a":1}` || got.Objects[1].Context || got.Objects[1].Kind != "X" {
		t.Errorf("request %+v", got)
	}
	// int (from YAML decoders) travels as int64.
	data, _ = EncodeRequest(&Request{Objects: []Object{{Body: map[string]any{"n": 3}}}})
	if got, _ := DecodeRequest(data); got.Objects[0].Body["n"] != int64(3) {
		t.Errorf("int decoded as %#v", got.Objects[0].Body["n"])
	}
}

func TestCodecRejects(t *testing.T) {
	if _, err := EncodeRequest(&Request{Objects: []Object{{File: "f", Line: 2, Body: map[string]any{"c": make(chan int)}}}}); err == nil ||
		!strings.Contains(err.Error(), "object 0 (f:2): value of type chan int is not JSON-compatible") {
		t.Errorf("encode chan: %v", err)
	}
	good, _ := EncodeRequest(&Request{Objects: []Object{{Body: map[string]any{"k": []any{"v", 1.5}}}}})
	deep := []byte(requestMagic + "\x00\x00\x01\x00\x00\x00" + strings.Repeat("\x06\x01", 600))
	for name, data := range map[string][]byte{
		"empty":     nil,
		"bad magic": []byte("JSON{}"),
		"truncated": good[:len(good)-3],
		"trailing":  append(append([]byte{}, good...), 0),
		"huge":      []byte(requestMagic + "\x00\x00\xff\xff\xff\xff\x0f"),
		"bad tag":   []byte(requestMagic + "\x00\x00\x01\x00\x00\x00\x63"),
		"too deep":  deep,
	} {
		if _, err := DecodeRequest(data); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestDecodedValuesIndependent: values decoded into shared slabs behave
// like ordinary ones (appending to one list leaves its neighbour alone;
// many values survive a garbage collection).
func TestDecodedValuesIndependent(t *testing.T) {
	var objs []Object
	for i := range 3000 {
		objs = append(objs, Object{Body: map[string]any{"a": []any{"x", int64(i)}, "b": []any{"y"}, "s": strings.Repeat("v", i%7)}})
	}
	data, err := EncodeRequest(&Request{Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	req, err := DecodeRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	a := req.Objects[0].Body["a"].([]any)
	_ = append(a, "clobber")
	if b := req.Objects[0].Body["b"].([]any); b[0] != "y" {
		t.Fatalf("appending to one list changed the next: %v", b)
	}
	runtime.GC()
	for i, o := range req.Objects {
		if got := o.Body["a"].([]any)[1]; got != int64(i) || o.Body["s"] != strings.Repeat("v", i%7) {
			t.Fatalf("object %d decoded as %#v", i, o.Body)
		}
	}
}

// TestCodecChunks: a request encoded in small chunks decodes chunk by
// chunk into the same request as their concatenation; every chunk but the
// first starts at an object; a stream cut short or carrying more objects
// than announced is refused.
func TestCodecChunks(t *testing.T) {
	var objs []Object
	for i := range 500 {
		objs = append(objs, Object{File: "f.yaml", Line: i + 1, Context: i%7 == 0,
			Body: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": strings.Repeat("n", i%40+1)},
				"data": map[string]any{"i": int64(i), "s": strings.Repeat("x", i)}}})
	}
	req := &Request{DefaultNamespace: "apps", Config: []byte(`{}`), Objects: objs}
	var chunks [][]byte
	if err := encodeRequest(req, 4096, func(b []byte) error { chunks = append(chunks, b); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 10 {
		t.Fatalf("%d chunks for ~%d KB at 4 KB each", len(chunks), len(bytes.Join(chunks, nil))>>10)
	}
	whole := bytes.Join(chunks, nil) // what EncodeRequest returns (up to map order)
	var rd requestDecoder
	for i, c := range chunks {
		if err := rd.chunk(string(c)); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
	got, err := rd.finish()
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecodeRequest(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got.Objects) != 500 || got.Objects[499].Line != 500 || !got.Objects[7].Context {
		t.Fatal("chunked decoding differs from decoding the whole request")
	}

	var short requestDecoder
	for _, c := range chunks[:len(chunks)-1] {
		if err := short.chunk(string(c)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := short.finish(); err == nil || !strings.Contains(err.Error(), "announced (the stream was cut short)") {
		t.Errorf("cut short: %v", err)
	}
	var extra requestDecoder
	for _, c := range append(chunks, chunks[1]) {
		err = extra.chunk(string(c))
	}
	if err == nil || !strings.Contains(err.Error(), "more objects than the 500 announced") {
		t.Errorf("extra chunk: %v", err)
	}
}
