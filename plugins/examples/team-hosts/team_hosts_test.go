package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/plugins/sdk"
)

// load reads a multi-document YAML file into request objects with their
// lines, as routeguard sends them.
func load(t *testing.T, file string) []sdk.Object {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []sdk.Object
	line := 1
	for _, doc := range strings.Split(string(data), "\n---\n") {
		first := line
		for _, l := range strings.Split(doc, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				break
			}
			first++
		}
		var body map[string]any
		if err := yaml.Unmarshal([]byte(doc), &body); err != nil {
			t.Fatal(err)
		}
		out = append(out, sdk.Object{File: file, Line: first, Body: body})
		line += strings.Count(doc, "\n") + 2
	}
	// Round-trip through the wire format so the identifying fields are
	// filled in exactly as the plugin receives them.
	enc, err := sdk.EncodeRequest(&sdk.Request{Objects: out})
	if err != nil {
		t.Fatal(err)
	}
	req, err := sdk.DecodeRequest(enc)
	if err != nil {
		t.Fatal(err)
	}
	return req.Objects
}

func analyze(t *testing.T, a sdk.Analyzer, cfg string) ([]string, error) {
	t.Helper()
	req := &sdk.Request{Objects: load(t, "testdata/apps.yaml"), Config: json.RawMessage(cfg), DefaultNamespace: "default"}
	fs, err := a.Analyze(context.Background(), req)
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s/%s:%d %s", f.Code, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Line, f.Message))
	}
	return out, err
}

const teams = `{"teams": {"shop": ["shop.example.com", "*.shop.example.com"], "payments": ["pay.example.com", "*.pay.example.com"]}}`

func TestTeamHosts(t *testing.T) {
	got, err := analyze(t, teamHosts{}, teams)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`TH001 HTTPRoute shop/storefront:2 HTTPRoute claims hostname "pay.example.com", which team "shop" may not use (allowed: *.shop.example.com, shop.example.com)`,
		`TH001 GRPCRoute shop/catalog:10 GRPCRoute claims hostname "*.example.com", which team "shop" may not use (allowed: *.shop.example.com, shop.example.com)`,
		`TH001 VirtualService payments/checkout:18 VirtualService claims hostname "admin.shop.example.com", which team "payments" may not use (allowed: *.pay.example.com, pay.example.com)`,
		`TH001 Ingress shop/legacy:26 Ingress claims hostname "shop.example.org", which team "shop" may not use (allowed: *.shop.example.com, shop.example.com)`,
		`TH002 Gateway infra/edge:38 namespace "infra" is not in the team-hosts config, so the hostnames *.example.com are unchecked; add it to teams`,
		`TH001 Gateway payments/mesh-edge:48 Gateway claims hostname "api.example.com", which team "payments" may not use (allowed: *.pay.example.com, pay.example.com)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnlisted(t *testing.T) {
	for mode, want := range map[string]string{
		"deny":  `TH001 Gateway infra/edge:38 Gateway claims hostname "*.example.com", which team "infra" may not use (allowed: none)`,
		"allow": "",
	} {
		cfg := strings.TrimSuffix(teams, "}") + `, "unlisted": "` + mode + `"}`
		got, err := analyze(t, teamHosts{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var infra string
		for _, g := range got {
			if strings.Contains(g, "infra/edge") {
				infra = g
			}
		}
		if infra != want {
			t.Errorf("unlisted %s: %q, want %q", mode, infra, want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for cfg, want := range map[string]string{
		`{"team": {}}`:                         `unknown field "team"`,
		`{"teams": {"shop": ["bad host!"]}}`:   `teams.shop: "bad host!" is not a hostname`,
		`{"teams": {}, "unlisted": "maybe"}`:   `unlisted must be warn, deny or allow`,
		`{"teams": {"shop": ["*.*.example"]}}`: `is not a hostname`,
	} {
		if _, err := analyze(t, teamHosts{}, cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %s: err = %v, want %q", cfg, err, want)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"shop.example.com", "shop.example.com", true},
		{"shop.example.com", "www.shop.example.com", false},
		{"*.shop.example.com", "a.b.shop.example.com", true},
		{"*.shop.example.com", "shop.example.com", false},
		{"*.shop.example.com", "*.a.shop.example.com", true},
		{"*.shop.example.com", "*.example.com", false},
		{"*.shop.example.com", "evilshop.example.com", false},
		{"*", "*", true},
		{"*.example.com", "*", false},
	}
	for _, tt := range tests {
		if got := covers(tt.pattern, tt.host); got != tt.want {
			t.Errorf("covers(%q, %q) = %v", tt.pattern, tt.host, got)
		}
	}
}

// TestOverGRPC runs the plugin through the SDK's gRPC shims, as
// routeguard does.
func TestOverGRPC(t *testing.T) {
	c, _ := plugin.TestPluginGRPCConn(t, false, sdk.PluginSet(teamHosts{}))
	defer c.Close()
	raw, err := c.Dispense(sdk.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	md, err := raw.(sdk.Analyzer).Metadata(context.Background())
	if err != nil || md.Name != "team-hosts" || len(md.Codes) != 2 {
		t.Fatalf("metadata %+v %v", md, err)
	}
	got, err := analyze(t, raw.(sdk.Analyzer), teams)
	if err != nil || len(got) != 6 {
		t.Fatalf("over gRPC: %v %q", err, got)
	}
}
