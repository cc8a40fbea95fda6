package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

const sharedGateway = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: infra}
spec:
  gatewayClassName: envoy
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
`

const teamRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: team}
spec:
  parentRefs: [{name: public, namespace: infra}]
  hostnames: [web.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: team}
spec: {ports: [{port: 80}]}
`

// GitLab syntax: sections, an optional one, default owners.
const gitlabOwners = `* @everyone
[Infrastructure] @infra-lead
platform/
^[Team web]
team/ @web-team
`

// sharedRepo commits the platform and team apps, then leaves the work tree
// for the test to change.
func sharedRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"platform/gateway.yaml": sharedGateway, "team/route.yaml": teamRoute, ".gitlab/CODEOWNERS": gitlabOwners} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	harness.CommitAll(t, dir)
	return dir
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A route onto another app's Gateway, and a change to that Gateway, are
// shared routing: named with both owners and the CODEOWNERS entries of
// every section, in every format; --fail-on-shared-change fails on them.
func TestSharedRoutingReview(t *testing.T) {
	dir := sharedRepo(t)
	diff := func(args ...string) harness.Result {
		return harness.Run(t, harness.Options{Dir: dir}, append([]string{"diff", "--base", "HEAD"}, append(args, "platform", "team")...)...)
	}
	// No change: nothing shared, exit 0 even with the flag.
	if r := diff("--fail-on-shared-change"); r.Code != 0 || strings.Contains(r.Stdout, "Shared routing") {
		t.Fatalf("unchanged: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	edit(t, filepath.Join(dir, "team/route.yaml"), "web.example.com", "www.example.com")
	r := diff("-o", "json")
	var doc struct {
		Shared []struct {
			Change     string `json:"change"`
			Route      string `json:"route"`
			RouteOwner struct {
				Kind, Name string
			} `json:"routeOwner"`
			Gateway      string                      `json:"gateway"`
			GatewayOwner struct{ Kind, Name string } `json:"gatewayOwner"`
			Files        []struct {
				Role, Path string
				Entries    []struct {
					Section  string
					Optional bool
					Owners   []string
					Line     int
				} `json:"codeowners"`
			} `json:"files"`
		} `json:"sharedRouting"`
		CodeOwnersFile string `json:"codeownersFile"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if len(doc.Shared) != 1 || doc.CodeOwnersFile != ".gitlab/CODEOWNERS" {
		t.Fatalf("shared routing %+v (CODEOWNERS %q), want one route", doc.Shared, doc.CodeOwnersFile)
	}
	s := doc.Shared[0]
	if s.Route != "HTTPRoute team/web" || s.RouteOwner.Name != "team" || s.Gateway != "Gateway infra/public" || s.GatewayOwner.Name != "platform" || len(s.Files) != 2 {
		t.Fatalf("shared item %+v", s)
	}
	route, gw := s.Files[0], s.Files[1]
	if route.Path != "team/route.yaml" || len(route.Entries) != 2 || route.Entries[1].Section != "Team web" || !route.Entries[1].Optional ||
		strings.Join(route.Entries[1].Owners, ",") != "@web-team" {
		t.Errorf("route file owners %+v", route)
	}
	if gw.Path != "platform/gateway.yaml" || len(gw.Entries) != 2 || gw.Entries[1].Section != "Infrastructure" || strings.Join(gw.Entries[1].Owners, ",") != "@infra-lead" {
		t.Errorf("Gateway file owners %+v", gw)
	}
	text := diff()
	if text.Code != 1 || !strings.Contains(text.Stdout, "Shared routing (another owner's Gateway) (1)") ||
		!strings.Contains(text.Stdout, "path team") || !strings.Contains(text.Stdout, ".gitlab/CODEOWNERS:3 [Infrastructure] platform/ @infra-lead") {
		t.Errorf("text: exit %d\n%s", text.Code, text.Stdout)
	}
	md := diff("-o", "markdown")
	if !strings.Contains(md.Stdout, "#### Shared routing (another owner&#39;s Gateway) (1)") && !strings.Contains(md.Stdout, "#### Shared routing (another owner's Gateway) (1)") {
		t.Errorf("markdown lacks the section:\n%s", md.Stdout)
	}
	if strings.Contains(md.Stdout, "@infra-lead") {
		t.Errorf("markdown mentions owners (a repository must not make routeguard ping people):\n%s", md.Stdout)
	}
	// --fail-on-new never exits 0 on routing changes; the shared change still fails it.
	if r := diff("--fail-on-new", "never"); r.Code != 0 {
		t.Errorf("--fail-on-new never: exit %d", r.Code)
	}
	if r := diff("--fail-on-new", "never", "--fail-on-shared-change"); r.Code != 1 {
		t.Errorf("--fail-on-shared-change: exit %d", r.Code)
	}
	// A change to the Gateway alone is shared too: the team's route uses it.
	edit(t, filepath.Join(dir, "team/route.yaml"), "www.example.com", "web.example.com")
	edit(t, filepath.Join(dir, "platform/gateway.yaml"), "port: 80", "port: 8080")
	if r := diff(); !strings.Contains(r.Stdout, "(the Gateway itself)") || !strings.Contains(r.Stdout, "Gateway infra/public") {
		t.Errorf("Gateway change not shared:\n%s", r.Stdout)
	}
	if r := diff("--codeowners", "bitbucket"); r.Code != 2 || !strings.Contains(r.Stderr, "--codeowners must be github or gitlab") {
		t.Errorf("--codeowners bitbucket: exit %d %s", r.Code, r.Stderr)
	}
}
