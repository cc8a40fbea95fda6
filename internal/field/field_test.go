package field

import (
	"reflect"
	"testing"
)

func TestReaders(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "n": int64(1)}},
		"spec": map[string]any{
			"replicas": float64(3),
			"half":     2.5,
			"hosts":    []any{"a.example.com", int64(7), "b.example.com"},
			"rules":    []any{map[string]any{"x": "y"}, "not a map"},
			"weight":   int64(20),
			"port":     80,
			"nullish":  nil,
		},
		"status": "not a map",
	}
	if got := String(obj, "metadata", "name"); got != "web" {
		t.Errorf("String = %q", got)
	}
	if got := String(obj, "status", "phase"); got != "" {
		t.Errorf("String through a non-map = %q", got)
	}
	if got := String(obj, "spec", "replicas"); got != "" {
		t.Errorf("String of a number = %q", got)
	}
	if got := Strings(obj, "spec", "hosts"); !reflect.DeepEqual(got, []string{"a.example.com", "b.example.com"}) {
		t.Errorf("Strings = %v", got)
	}
	if got := Maps(obj, "spec", "rules"); len(got) != 1 || got[0]["x"] != "y" {
		t.Errorf("Maps = %v", got)
	}
	if got := StringMap(obj, "metadata", "labels"); !reflect.DeepEqual(got, map[string]string{"app": "web"}) {
		t.Errorf("StringMap = %v", got)
	}
	for _, c := range []struct {
		path []string
		want int64
		ok   bool
	}{
		{[]string{"spec", "replicas"}, 3, true},
		{[]string{"spec", "weight"}, 20, true},
		{[]string{"spec", "port"}, 80, true},
		{[]string{"spec", "half"}, 0, false},
		{[]string{"spec", "missing"}, 0, false},
		{[]string{"metadata", "name"}, 0, false},
	} {
		if got, ok := Int(obj, c.path...); got != c.want || ok != c.ok {
			t.Errorf("Int(%v) = %d, %v; want %d, %v", c.path, got, ok, c.want, c.ok)
		}
	}
	if !Has(obj, "spec", "port") || Has(obj, "spec", "nullish") || Has(obj, "spec", "missing", "deeper") {
		t.Error("Has")
	}
	if Map(obj, "status") != nil || List(obj, "metadata") != nil {
		t.Error("Map/List of the wrong type must be nil")
	}
}

func TestEnsureMap(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"name": "web", "labels": "broken"}}
	EnsureMap(obj, "metadata", "annotations")["a"] = "1"
	EnsureMap(obj, "metadata", "labels")["app"] = "web"
	EnsureMap(obj, "metadata", "annotations")["b"] = "2"
	want := map[string]any{"metadata": map[string]any{
		"name":        "web",
		"labels":      map[string]any{"app": "web"},
		"annotations": map[string]any{"a": "1", "b": "2"},
	}}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("got %v", obj)
	}
	fresh := map[string]any{}
	EnsureMap(fresh, "spec", "template", "metadata")["x"] = true
	if Get(fresh, "spec", "template", "metadata", "x") != true {
		t.Errorf("got %v", fresh)
	}
}

func TestBool(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"insecure": true, "optional": "true"}}
	if !Bool(obj, "spec", "insecure") || Bool(obj, "spec", "optional") || Bool(obj, "spec", "missing") {
		t.Error("Bool reads only booleans")
	}
}
