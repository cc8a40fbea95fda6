package report

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	got := render(t, "text", Options{}, sample)
	want := `apps/shop/route.yaml
  apps/shop/route.yaml:12: error RG1101 HTTPRoute shop/web: backendRef names Service shop/web-v2, which does not exist
  apps/shop/route.yaml:30: info IST0101 VirtualService shop/web: Referenced host not found
apps/shop/web.yaml
  apps/shop/web.yaml:1: warning RG4002 Deployment shop/web: container "web" runs image "nginx:latest" <&>

1 error, 1 warning, 1 info
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "\x1b[") {
		t.Error("colour without a terminal")
	}
}

func TestTextColor(t *testing.T) {
	got := render(t, "text", Options{Color: true}, sample)
	if !strings.Contains(got, "\x1b[31merror\x1b[0m") || !strings.Contains(got, "\x1b[33mwarning\x1b[0m") {
		t.Errorf("no colours on a terminal:\n%q", got)
	}
}

func TestTextEmpty(t *testing.T) {
	if got := render(t, "text", Options{}, nil); got != "no findings\n" {
		t.Errorf("got %q", got)
	}
}
