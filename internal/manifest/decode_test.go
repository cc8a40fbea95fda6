package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func decodeFixture(t *testing.T, name string) ([]*Object, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Decode(name, data)
}

func TestDecodeGood(t *testing.T) {
	tests := []struct {
		file  string
		want  []string // "Kind ns/name@line#doc"
		check func(t *testing.T, objs []*Object)
	}{
		{file: "multi_doc.yaml", want: []string{"Service shop/web@2#0", "Deployment shop/web@15#3"},
			check: func(t *testing.T, objs []*Object) {
				if r := objs[1].Body["spec"].(map[string]any)["replicas"]; r != int64(3) {
					t.Errorf("replicas = %#v, want int64(3)", r)
				}
			}},
		{file: "list_kind.yaml", want: []string{"ConfigMap a@4#0", "ConfigMap b@8#0"}},
		{file: "object.json", want: []string{"ConfigMap x/from-json@1#0"}},
		{file: "anchors_merge.yaml", want: []string{"ConfigMap merged@1#0"},
			check: func(t *testing.T, objs []*Object) {
				ann := objs[0].Annotations()
				if ann["team"] != "shop" || ann["tier"] != "overridden" {
					t.Errorf("merge key: annotations = %v, want team=shop tier=overridden", ann)
				}
				if objs[0].Labels()["tier"] != "web" {
					t.Errorf("labels = %v", objs[0].Labels())
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			objs, err := decodeFixture(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.String()+"@"+itoa(o.Source.Line)+"#"+itoa(o.Source.Doc))
				if o.Source.File != tt.file {
					t.Errorf("source file = %q, want %q", o.Source.File, tt.file)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, objs)
			}
		})
	}
}

func itoa(i int) string { return fmtInt(i) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestDecodeBad(t *testing.T) {
	tests := []struct {
		file     string
		wantLine int
		wantMsg  string
	}{
		{"malformed.yaml", 6, "malformed YAML"},
		{"not_object.yaml", 6, "document 2 is a list, not an object"},
		{"missing_kind.yaml", 6, "object has no kind"},
		{"duplicate_key.yaml", 5, `key "name" is defined twice`},
		{"alias_bomb.yaml", 0, "alias bomb"},
		{"not_utf8.yaml", 6, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			objs, err := decodeFixture(t, tt.file)
			if err == nil {
				t.Fatalf("no error; decoded %d objects", len(objs))
			}
			if objs != nil {
				t.Errorf("partial result returned with error: %d objects", len(objs))
			}
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v is not a *manifest.Error", err, err)
			}
			if me.File != tt.file || me.Line != tt.wantLine {
				t.Errorf("place = %s:%d, want %s:%d (%v)", me.File, me.Line, tt.file, tt.wantLine, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{"", "---\n", "# only a comment\n", "---\n---\n# c\n---\n", "null\n"} {
		objs, err := Decode("empty.yaml", []byte(in))
		if err != nil || len(objs) != 0 {
			t.Errorf("Decode(%q) = %d objects, %v; want none, nil", in, len(objs), err)
		}
	}
}

func TestSetDuplicate(t *testing.T) {
	objs, err := Decode("a.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Decode("b.yaml", []byte("\n\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"))
	other, _ := Decode("c.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: other}\n"))
	s := NewSet()
	if err := s.AddAll(append(objs, other...)); err != nil {
		t.Fatalf("distinct namespaces must not collide: %v", err)
	}
	err = s.Add(again[0])
	var dup *DuplicateError
	if !errors.As(err, &dup) {
		t.Fatalf("want *DuplicateError, got %v", err)
	}
	if !strings.Contains(err.Error(), "b.yaml:3") || !strings.Contains(err.Error(), "a.yaml:1") {
		t.Errorf("duplicate error must name both places: %v", err)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d after refused duplicate, want 2", s.Len())
	}
	if o, ok := s.Lookup("", "Service", "other", "web"); !ok || o.Source.File != "c.yaml" {
		t.Errorf("Lookup = %v, %v", o, ok)
	}
	if got := len(s.ByKind("", "Service")); got != 2 {
		t.Errorf("ByKind = %d, want 2", got)
	}
	if got := len(s.ByGVK("v1", "Service")); got != 2 {
		t.Errorf("ByGVK(v1) = %d, want 2", got)
	}
	if got := len(s.ByGVK("v2", "Service")); got != 0 {
		t.Errorf("ByGVK(v2) = %d, want 0", got)
	}
}

func TestGenerateNameNotDuplicate(t *testing.T) {
	doc := "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\n"
	a, err := Decode("a.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Decode("b.yaml", []byte(doc))
	s := NewSet()
	if err := s.AddAll(append(a, b...)); err != nil {
		t.Errorf("generateName objects are distinct on apply: %v", err)
	}
}

// DecodeLastKeyWins keeps the last value of a key defined twice, as
// sigs.k8s.io/yaml does, and names each duplicate; Decode refuses it.
func TestDecodeLastKeyWins(t *testing.T) {
	data := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: first\n  other: x\n  k: last\n")
	if _, err := Decode("cm.yaml", data); err == nil {
		t.Fatal("Decode accepted a duplicate key")
	}
	var dups []DuplicateKey
	objs, err := DecodeLastKeyWins("cm.yaml", data, func(d DuplicateKey) { dups = append(dups, d) })
	if err != nil {
		t.Fatal(err)
	}
	if got := objs[0].Body["data"].(map[string]any)["k"]; got != "last" {
		t.Errorf("k = %v, want the last value", got)
	}
	if len(dups) != 1 || dups[0] != (DuplicateKey{File: "cm.yaml", Line: 8, Key: "k"}) {
		t.Errorf("duplicates = %+v", dups)
	}
	if s := dups[0].String(); !strings.Contains(s, "cm.yaml:8") || !strings.Contains(s, `"k"`) {
		t.Errorf("message %q names neither file:line nor key", s)
	}
}

func TestAddLastWins(t *testing.T) {
	objs, err := Decode("a.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {type: NodePort}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet()
	for _, o := range objs[:2] {
		if dup := s.AddLastWins(o); dup != nil {
			t.Fatalf("unexpected duplicate %v", dup)
		}
	}
	dup := s.AddLastWins(objs[2])
	if dup == nil || dup.Object != objs[2] || dup.First.Line != 1 || dup.Second.Line != 9 {
		t.Fatalf("duplicate = %+v", dup)
	}
	if s.Len() != 2 || s.Objects()[0].Kind != "ConfigMap" || s.Objects()[1] != objs[2] {
		t.Errorf("objects after replacement: %v", s.Objects())
	}
	if got, _ := s.Get(objs[2].Key()); got != objs[2] {
		t.Errorf("Get returns the first object")
	}
	if svcs := s.ByKind("", "Service"); len(svcs) != 1 || svcs[0] != objs[2] {
		t.Errorf("ByKind = %v", svcs)
	}
}
