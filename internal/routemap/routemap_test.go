package routemap

import (
	"os"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func load(t *testing.T, file string) *manifest.Set {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode(file, data)
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestBuild(t *testing.T) {
	m := Build(load(t, "testdata/routing.yaml"), "default")
	var entries []string
	for _, e := range m.Entries {
		entries = append(entries, e.Parent+" | "+e.Host+" | "+e.Match+" | "+e.Route+" | "+BackendsString(e.Backends))
	}
	want := []string{
		"Gateway edge/public listener https | shop.example.com | PathPrefix / | HTTPRoute shop/shop | Service shop/web:80 w=1",
		"Gateway edge/public listener https | shop.example.com | PathPrefix /api header x-canary=true | HTTPRoute shop/shop | Service shop/api-blue:8080 w=90, Service shop/api-green:8080 w=10",
		"Ingress class nginx | old.example.com | Prefix / | Ingress shop/legacy | Service shop/web:80 w=100",
		"Istio Gateway istio-system/mesh-gw | reviews.example.com | http * | VirtualService bookinfo/reviews | reviews (v1) w=100",
		"Istio Gateway istio-system/mesh-gw | reviews.example.com | uri prefix /v2 | VirtualService bookinfo/reviews | reviews (v2) w=80, reviews (v1) w=20",
		"mesh | reviews.example.com | http * | VirtualService bookinfo/reviews | reviews (v1) w=100",
		"mesh | reviews.example.com | uri prefix /v2 | VirtualService bookinfo/reviews | reviews (v2) w=80, reviews (v1) w=20",
	}
	if !slices.Equal(entries, want) {
		t.Errorf("entries:\n%q\nwant:\n%q", entries, want)
	}
	var atts []string
	for _, a := range m.Attachments {
		atts = append(atts, a.Route+" -> "+a.Parent+": "+a.State)
	}
	wantAtts := []string{
		"HTTPRoute shop/lost -> Gateway edge/public: detached", // listener http admits only its own namespace
		"HTTPRoute shop/shop -> Gateway edge/public: attached",
		"VirtualService bookinfo/reviews -> Istio Gateway istio-system/mesh-gw: attached",
	}
	if !slices.Equal(atts, wantAtts) {
		t.Errorf("attachments:\n%q\nwant:\n%q", atts, wantAtts)
	}
	var tls []string
	for _, x := range m.TLS {
		tls = append(tls, x.Parent+" "+x.Host+" "+x.Certificate)
	}
	wantTLS := []string{
		"Gateway edge/public listener https *.example.com Secret edge/wildcard-example-com",
		"Ingress class nginx old.example.com Secret shop/old-tls",
		"Istio Gateway istio-system/mesh-gw reviews.example.com credential reviews-cert",
	}
	if !slices.Equal(tls, wantTLS) {
		t.Errorf("tls:\n%q\nwant:\n%q", tls, wantTLS)
	}
	if len(m.Grants) != 1 || m.Grants[0].From != "HTTPRoute in edge" || m.Grants[0].To != "Service shop/*" {
		t.Errorf("grants: %+v", m.Grants)
	}
}
