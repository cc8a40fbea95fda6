package bundleyaml

import "testing"

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]any{
		"b": "two\nlines\n",
		"a": map[string]string{"z": "1", "y": "x"},
		"c": []any{true, "s"},
	}, "header line")
	if err != nil {
		t.Fatal(err)
	}
	want := "# header line\na:\n  y: x\n  z: \"1\"\nb: |\n  two\n  lines\nc:\n  - true\n  - s\n"
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	ordered, err := Marshal(Mapping("kind", Scalar("ConfigMap"), "apiVersion", Scalar("v1")))
	if err != nil || string(ordered) != "kind: ConfigMap\napiVersion: v1\n" {
		t.Fatalf("a node keeps its order: %q %v", ordered, err)
	}
	if _, err := Marshal(map[string]any{"n": 1}); err == nil {
		t.Fatal("an int must be refused, not written as something else")
	}
}
