package manifest

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// trickyStrings are values a careless emitter turns into other types or
// other text when read back.
var trickyStrings = []string{
	"", " ", "a", "yes", "No", "on", "OFF", "y", "n", "true", "False", "null", "~", "<<", "=",
	"1", "01", "0x1F", "0o17", "1e3", "1.5", ".5", "+1", "-1", "1_000", "1:20", "12:30:45", ".inf", "-.Inf", ".nan",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "1.14.2", "v1.2.3", "3.2.0-rc.1",
	"- item", "key: value", "a #comment", "#hash", "&anchor", "*alias", "!tag", "%percent", "@at", "`tick`",
	"quote\"inside", "single'quote", "back\\slash", "tab\there", "trailing ", " leading", "colon:", "a:b", "http://x.y/z?q=1&r=2",
	"<html>&amp;</html>", "line1\nline2", "line1\nline2\n", "line1\nline2\n\n", "\nleading newline", "ends with space \nx",
	"unicode ✓ ü 漢字", "\u2028sep", "nul\x00byte", "bell\x07", "cr\r\nlf", "{braces}", "[brackets]", "a, b", "?question", "|pipe", ">gt",
	"---", "...", "--- x", "${var}", "$${escaped}", "*.example.com", "%{x}", "a\tb\nc\td\n",
}

func roundTrip(t *testing.T, body map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteYAML(&buf, []*Object{{Body: body}}); err != nil {
		t.Fatalf("WriteYAML: %v", err)
	}
	want, _ := json.Marshal(body)
	objs, err := Decode("rt.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("our decoder rejects our output: %v\n%s", err, buf.String())
	}
	got, _ := json.Marshal(objs[0].Body)
	if !bytes.Equal(got, want) {
		t.Errorf("round trip through our decoder changed the object\n got %s\nwant %s\nyaml:\n%s", got, want, buf.String())
	}
	// sigs.k8s.io/yaml is what kubectl and Argo CD use to read manifests.
	var k8s map[string]any
	if err := yaml.Unmarshal(bytes.TrimPrefix(buf.Bytes(), []byte("---\n")), &k8s); err != nil {
		t.Fatalf("sigs.k8s.io/yaml rejects our output: %v\n%s", err, buf.String())
	}
	got2, _ := json.Marshal(k8s)
	if !bytes.Equal(got2, want) {
		t.Errorf("round trip through sigs.k8s.io/yaml changed the object\n got %s\nwant %s\nyaml:\n%s", got2, want, buf.String())
	}
}

func base(extra map[string]any) map[string]any {
	m := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestWriteYAMLTrickyStrings(t *testing.T) {
	for _, s := range trickyStrings {
		t.Run(strings.ReplaceAll(s, "/", "_"), func(t *testing.T) {
			roundTrip(t, base(map[string]any{
				"data": map[string]any{"v": s, s + "key": "k"},
				"list": []any{s, map[string]any{"k": s}, []any{s}},
			}))
		})
	}
}

func TestWriteYAMLShapes(t *testing.T) {
	roundTrip(t, base(map[string]any{
		"empty":   map[string]any{},
		"emptyL":  []any{},
		"nested":  []any{[]any{int64(1), int64(2)}, []any{}, map[string]any{}, nil},
		"numbers": map[string]any{"i": int64(-42), "f": 1.5, "big": int64(1) << 52, "e": 1e-7, "whole": float64(3)},
		"bools":   []any{true, false},
		"deep":    map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": []any{map[string]any{"d": "e", "f": "g"}}}}}},
	}))
}

// TestWriteYAMLRandom builds random objects from the tricky strings (fixed
// seed, so failures reproduce) and round-trips them.
func TestWriteYAMLRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.Intn(7); {
		case depth > 3 || k < 3:
			return trickyStrings[rng.Intn(len(trickyStrings))]
		case k == 3:
			return int64(rng.Intn(2000) - 1000)
		case k == 4:
			l := make([]any, rng.Intn(4))
			for i := range l {
				l[i] = gen(depth + 1)
			}
			return l
		default:
			m := map[string]any{}
			for i := rng.Intn(4); i > 0; i-- {
				m[trickyStrings[rng.Intn(len(trickyStrings))]] = gen(depth + 1)
			}
			return m
		}
	}
	for i := 0; i < 300; i++ {
		roundTrip(t, base(map[string]any{"data": gen(0)}))
	}
}

// TestWriteYAMLExamples round-trips every object of the bundled examples.
func TestWriteYAMLExamples(t *testing.T) {
	n := 0
	filepath.WalkDir("../../examples", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".json")) || strings.Contains(p, "templates") {
			return nil
		}
		data, _ := os.ReadFile(p)
		objs, err := Decode(p, data)
		if err != nil {
			return nil // values files and kustomizations are not all objects
		}
		for _, o := range objs {
			roundTrip(t, o.Body)
			n++
		}
		return nil
	})
	if n < 30 {
		t.Errorf("round-tripped only %d example objects", n)
	}
}

func TestWriteYAMLStyle(t *testing.T) {
	var buf bytes.Buffer
	obj := base(map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"name": "http", "port": int64(80)}}}, "data": map[string]any{"script": "echo a\necho b\n"}})
	if err := WriteYAML(&buf, []*Object{{Body: obj}}); err != nil {
		t.Fatal(err)
	}
	want := "---\napiVersion: v1\ndata:\n  script: |\n    echo a\n    echo b\nkind: ConfigMap\nmetadata:\n  name: x\nspec:\n  ports:\n  - name: http\n    port: 80\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if !reflect.DeepEqual(obj["kind"], "ConfigMap") {
		t.Error("WriteYAML must not modify its input")
	}
}
