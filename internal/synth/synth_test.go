package synth

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func decodeAll(t *testing.T, r *Repo) []*manifest.Object {
	t.Helper()
	var out []*manifest.Object
	for _, p := range slices.Sorted(maps.Keys(r.Files)) {
		objs, err := manifest.Decode(p, r.Files[p])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, objs...)
	}
	return out
}

func TestGenerate(t *testing.T) {
	for _, workloads := range []bool{false, true} {
		opts := Options{Services: 45, Dangling: 4, Seed: 7, Workloads: workloads}
		r, err := Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		objs := decodeAll(t, r)
		if len(objs) != r.Objects || r.Objects != count(45, Options{ServicesPerNS: 20, Workloads: workloads}) {
			t.Fatalf("decoded %d objects, Repo.Objects %d", len(objs), r.Objects)
		}
		set := manifest.NewSet()
		if err := set.AddAll(objs); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, o := range objs {
			kinds[o.Kind]++
		}
		want := map[string]int{"IngressClass": 1, "Namespace": 3, "Gateway": 3, "Service": 45, "HTTPRoute": 45,
			"VirtualService": 45, "DestinationRule": 45, "Ingress": 45}
		if workloads {
			want["Deployment"] = 90
		}
		if !maps.Equal(kinds, want) {
			t.Fatalf("kinds %v, want %v", kinds, want)
		}
		// Exactly 3K injected objects, each naming a Service that does not
		// exist; every other reference resolves.
		if len(r.Injected) != 12 {
			t.Fatalf("injected %v", r.Injected)
		}
		for _, o := range objs {
			text := string(r.Files[o.Source.File])
			dangles := strings.Contains(text, o.Name+"-gone")
			injected := slices.ContainsFunc(r.Injected, func(x Ref) bool {
				return x.Kind == o.Kind && x.Namespace == o.Namespace && x.Name == o.Name && x.File == o.Source.File
			})
			switch o.Kind {
			case "HTTPRoute", "VirtualService", "Ingress":
				if dangles != injected {
					t.Errorf("%s: dangling %v, listed as injected %v", o, dangles, injected)
				}
			}
			if strings.HasSuffix(o.Name, "-gone") {
				t.Errorf("%s: the missing target exists", o)
			}
		}
	}
}

func TestDeterministicBySeed(t *testing.T) {
	a, _ := Generate(Options{Services: 100, Dangling: 5, Seed: 1})
	b, _ := Generate(Options{Services: 100, Dangling: 5, Seed: 1})
	c, _ := Generate(Options{Services: 100, Dangling: 5, Seed: 2})
	if !maps.EqualFunc(a.Files, b.Files, func(x, y []byte) bool { return string(x) == string(y) }) {
		t.Fatal("same seed, different repositories")
	}
	if slices.Equal(a.Injected, c.Injected) {
		t.Fatal("different seeds picked the same dangling services")
	}
}

func TestForObjects(t *testing.T) {
	for _, target := range []int{1000, 10000} {
		opts := Options{}
		n := ForObjects(target, opts)
		opts.defaults()
		if got := count(n, opts); got > target || count(n+1, opts) <= target {
			t.Fatalf("ForObjects(%d) = %d services = %d objects", target, n, got)
		}
	}
	if _, err := Generate(Options{Services: 3, Dangling: 4}); err == nil {
		t.Fatal("want an error for more dangling services than services")
	}
}
