package transform

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
)

func load(t *testing.T, files ...string) *manifest.Set {
	t.Helper()
	set := manifest.NewSet()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode(filepath.ToSlash(f), data)
		if err != nil {
			t.Fatal(err)
		}
		if err := set.AddAll(objs); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

const (
	exampleVS  = "../../examples/apps/routing/istio/virtualservice-reviews.yaml"
	exampleDR  = "../../examples/apps/routing/istio/destinationrule-reviews.yaml"
	exampleHR  = "../../examples/flux/apps/reviews-gateway/httproute.yaml"
	testdataHR = "testdata/httproute-reviews.yaml"
)

// weightsOf lists "name=weight" of every weighted entry of the routes in set.
func weightsOf(set *manifest.Set) []string {
	var out []string
	for _, o := range set.Objects() {
		spec, _ := o.Body["spec"].(map[string]any)
		if http, ok := spec["http"].([]any); ok {
			for _, r := range http {
				for _, d := range r.(map[string]any)["route"].([]any) {
					dm := d.(map[string]any)
					dest := dm["destination"].(map[string]any)
					out = append(out, o.Name+"/"+dest["subset"].(string)+"="+toString(dm["weight"]))
				}
			}
		}
		if rules, ok := spec["rules"].([]any); ok {
			for _, r := range rules {
				refs, _ := r.(map[string]any)["backendRefs"].([]any)
				for _, ref := range refs {
					bm := ref.(map[string]any)
					out = append(out, o.Name+"/"+bm["name"].(string)+"="+toString(bm["weight"]))
				}
			}
		}
	}
	return out
}

func toString(v any) string {
	switch w := v.(type) {
	case int64:
		return strconv.FormatInt(w, 10)
	case nil:
		return "unset"
	}
	return "?"
}

func TestWeights(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		weights string
		want    []string
		wantErr string
	}{
		{name: "example VirtualService by subset", files: []string{exampleVS, exampleDR}, weights: "reviews: blue 40, green 60",
			want: []string{"reviews/blue=40", "reviews/green=60"}},
		{name: "example HTTPRoute by backend name", files: []string{exampleHR}, weights: "reviews: blue 25, green 75",
			want: []string{"reviews/reviews-blue=25", "reviews/reviews-green=75"}},
		{name: "both kinds at once, other rules untouched", files: []string{exampleVS, testdataHR}, weights: "reviews: blue 0, green 100",
			want: []string{"reviews/blue=0", "reviews/green=100", "reviews/reviews-blue=0", "reviews/reviews-green=100", "reviews/assets=unset"}},
		{name: "sum not 100", files: []string{exampleVS}, weights: "reviews: blue 90, green 20", wantErr: "add up to 110"},
		{name: "unknown service", files: []string{exampleVS}, weights: "ratings: v1 100", wantErr: "transforms.weights.ratings: no VirtualService destination of host ratings"},
		{name: "backend no route has", files: []string{exampleVS}, weights: "reviews: blue 50, green 40, yellow 10",
			wantErr: "examples/apps/routing/istio/virtualservice-reviews.yaml:2: VirtualService bookinfo/reviews spec.http[0].route has no reviews backend \"yellow\""},
		{name: "backend no route has at weight 0", files: []string{exampleVS}, weights: "reviews: blue 50, green 50, yellow 0",
			wantErr: "transforms.weights.reviews: no route has a reviews backend \"yellow\""},
		{name: "route backend the transform forgets", files: []string{exampleVS}, weights: "reviews: blue 100",
			wantErr: "routes to reviews backend \"green\", which transforms.weights.reviews does not name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := load(t, tc.files...)
			w, err := config.ParseWeights(tc.weights)
			if err == nil {
				err = Apply(set, &config.Transforms{Weights: w})
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(weightsOf(set), " ")
			if got != strings.Join(tc.want, " ") {
				t.Fatalf("weights %s, want %s", got, strings.Join(tc.want, " "))
			}
		})
	}
}

func TestSyncWaves(t *testing.T) {
	set := load(t, "testdata/waves.yaml", exampleVS)
	if err := Apply(set, &config.Transforms{SyncWaves: true}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Namespace bookinfo":                           "-2",
		"Gateway bookinfo/public":                      "-1",
		"Deployment bookinfo/reviews":                  "",
		"HTTPRoute bookinfo/pinned":                    "5",
		"CustomResourceDefinition widgets.example.com": "-3",
		"VirtualService bookinfo/reviews":              "1",
	}
	for _, o := range set.Objects() {
		if got := o.Annotations()[SyncWaveAnnotation]; got != want[o.String()] {
			t.Errorf("%s: sync-wave %q, want %q", o, got, want[o.String()])
		}
	}
}

func TestNilConfigLeavesSetAlone(t *testing.T) {
	set := load(t, exampleVS)
	if err := Apply(set, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(weightsOf(set), " "); got != "reviews/blue=90 reviews/green=10" {
		t.Fatalf("weights changed: %s", got)
	}
}

func TestParseWeights(t *testing.T) {
	w, err := config.ParseWeights(" reviews: blue 90%, green 10 ; ratings: v1 100")
	if err != nil {
		t.Fatal(err)
	}
	if got := config.FormatWeights(w); got != "ratings: v1 100; reviews: blue 90, green 10" {
		t.Fatalf("got %q", got)
	}
	for in, want := range map[string]string{
		"reviews blue 90":                     "want \"service: backend weight",
		"reviews: blue ninety":                "not a whole number",
		"reviews: blue 90, blue 10":           "named twice",
		"reviews: blue 101, green -1":         "outside 0..100",
		"":                                    "names no service",
		"reviews: blue 50; reviews: green 50": "service reviews is named twice",
	} {
		if _, err := config.ParseWeights(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWeights(%q) error %v, want %q", in, err, want)
		}
	}
}
