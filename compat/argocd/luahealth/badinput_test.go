package luahealth

import (
	"math/rand"
	"path"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var okStatus = map[health.HealthStatusCode]bool{
	health.HealthStatusHealthy: true, health.HealthStatusProgressing: true, health.HealthStatusDegraded: true,
}

// script is one check with the apiVersion its objects use.
type script struct {
	dir, apiVersion, kind, lua string
}

func scripts(t testing.TB) []script {
	t.Helper()
	var out []script
	seen := map[string]bool{}
	for _, f := range fixtures(t) {
		if seen[f.dir] {
			continue
		}
		seen[f.dir] = true
		out = append(out, script{dir: f.dir, apiVersion: f.obj.GetAPIVersion(), kind: path.Base(f.dir), lua: f.script})
	}
	return out
}

// verdictOf runs one object through Argo CD's VM; any Lua error, nil result,
// status outside Healthy/Progressing/Degraded or empty message is a failure.
func verdictOf(t testing.TB, s script, obj map[string]any) {
	t.Helper()
	got, err := (lua.VM{}).ExecuteHealthLua(&unstructured.Unstructured{Object: obj}, s.lua)
	if err != nil {
		t.Fatalf("%s: Lua error on %#v: %v", s.dir, obj["status"], err)
	}
	if got == nil || !okStatus[got.Status] || got.Message == "" {
		t.Fatalf("%s: verdict %+v on %#v; want Healthy, Progressing or Degraded with a message", s.dir, got, obj["status"])
	}
}

// TestRandomStatusShapes feeds 200 random status shapes per kind, from a
// fixed seed, to every script through Argo CD's VM.
func TestRandomStatusShapes(t *testing.T) {
	r := randSource{rand.New(rand.NewSource(20261130))}
	for _, s := range scripts(t) {
		for i := 0; i < 200; i++ {
			verdictOf(t, s, object(r, s.apiVersion, s.kind))
		}
	}
}

// TestNamedBadShapes pins the shapes the issue names, for every kind.
func TestNamedBadShapes(t *testing.T) {
	shapes := map[string]any{
		"status a string":             "Accepted",
		"status a number":             int64(3),
		"status a list":               []any{"Accepted"},
		"conditions not a list":       map[string]any{"conditions": "Accepted", "parents": []any{map[string]any{"conditions": map[string]any{"type": "Accepted"}}}},
		"condition without type":      map[string]any{"conditions": []any{map[string]any{"status": "True"}}, "parents": []any{map[string]any{"conditions": []any{map[string]any{"status": "True"}}}}},
		"condition a string":          map[string]any{"conditions": []any{"Accepted"}, "ancestors": []any{map[string]any{"conditions": []any{"Accepted"}}}},
		"parents a map":               map[string]any{"parents": map[string]any{"a": int64(1)}, "ancestors": map[string]any{"a": int64(1)}},
		"listeners and messages odd":  map[string]any{"listeners": []any{nil, int64(1)}, "validationMessages": []any{map[string]any{"level": int64(3), "type": "x"}}},
		"observedGeneration a string": map[string]any{"observedGeneration": "abc", "conditions": []any{map[string]any{"type": "Reconciled", "status": "True", "observedGeneration": "x"}}},
		"status null":                 nil,
		"status empty":                map[string]any{},
	}
	for _, s := range scripts(t) {
		for name, st := range shapes {
			t.Run(s.dir+"/"+name, func(t *testing.T) {
				obj := map[string]any{"apiVersion": s.apiVersion, "kind": s.kind,
					"metadata": map[string]any{"name": "x", "generation": int64(2), "creationTimestamp": "2020-01-01T00:00:00Z"},
					"spec":     map[string]any{}, "status": st}
				verdictOf(t, s, obj)
			})
		}
	}
}

// FuzzHealthScripts feeds fuzzer-chosen status shapes to every script through
// Argo CD's VM. The seeds run in every `go test`; `go test -fuzz
// FuzzHealthScripts ./luahealth` explores further.
func FuzzHealthScripts(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {5}, {7, 3, 1, 2}, {8, 4, 6, 2, 7, 3, 0, 1, 5}, {8, 3, 6, 3, 8, 2, 1, 4, 4, 9, 8, 2, 7, 6, 5},
		[]byte("status-conditions-parents"), []byte{255, 254, 253, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
	} {
		f.Add(seed)
	}
	all := scripts(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range all {
			verdictOf(t, s, object(&byteSource{data: data}, s.apiVersion, s.kind))
		}
	})
}
