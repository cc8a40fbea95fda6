package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/plugins/sdk"
)

// version is set at build time (-ldflags "-X main.version=v1.0.0").
var version = "dev"

// Codes this plugin reports.
const (
	codeNotAllowed  = "TH001"
	codeUnknownTeam = "TH002"
)

// Config is the plugin's config in .routeguard.yaml.
type Config struct {
	// Teams maps a namespace to the hostnames its objects may claim.
	// "*.shop.example.com" allows every subdomain of shop.example.com
	// (not shop.example.com itself); "*" allows everything.
	Teams map[string][]string `json:"teams"`
	// Unlisted is what to do with a namespace Teams does not name: warn
	// (the default: TH002 once per object), deny (TH001 for every host) or
	// allow.
	Unlisted string `json:"unlisted"`
}

type teamHosts struct{}

func (teamHosts) Metadata(context.Context) (sdk.Metadata, error) {
	return sdk.Metadata{Name: "team-hosts", Version: version,
		Description: "Each namespace may only claim the hostnames its team owns.",
		Codes: []sdk.Code{
			{ID: codeNotAllowed, Severity: sdk.SeverityError, Description: "An object claims a hostname its namespace's team may not use. Use a hostname under the team's domains, or ask the platform team to extend them."},
			{ID: codeUnknownTeam, Severity: sdk.SeverityWarning, Description: "An object claims hostnames in a namespace the team-hosts config does not list, so they cannot be checked. Add the namespace to teams."},
		}}, nil
}

func (teamHosts) Analyze(ctx context.Context, req *sdk.Request) ([]sdk.Finding, error) {
	var cfg Config
	if err := req.DecodeConfig(&cfg); err != nil {
		return nil, err
	}
	switch cfg.Unlisted {
	case "", "warn", "deny", "allow":
	default:
		return nil, fmt.Errorf("plugin config: unlisted must be warn, deny or allow, got %q", cfg.Unlisted)
	}
	for ns, pats := range cfg.Teams {
		for _, p := range pats {
			if !validPattern(p) {
				return nil, fmt.Errorf("plugin config: teams.%s: %q is not a hostname, a *.wildcard or *", ns, p)
			}
		}
	}
	var out []sdk.Finding
	for i := range req.Objects {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o := &req.Objects[i]
		if o.Context {
			continue
		}
		hosts := claimedHosts(o)
		if len(hosts) == 0 {
			continue
		}
		ns := req.Namespace(o)
		allowed, listed := cfg.Teams[ns]
		if !listed {
			switch cfg.Unlisted {
			case "allow":
				continue
			case "", "warn":
				out = append(out, sdk.Findingf(o, codeUnknownTeam,
					"namespace %q is not in the team-hosts config, so the hostnames %s are unchecked; add it to teams",
					ns, strings.Join(hosts, ", ")))
				continue
			}
		}
		for _, h := range hosts {
			if !allowedHost(h, allowed) {
				out = append(out, sdk.Findingf(o, codeNotAllowed, "%s claims hostname %q, which team %q may not use (allowed: %s)",
					o.Kind, h, ns, describe(allowed)))
			}
		}
	}
	return out, nil
}

func describe(allowed []string) string {
	if len(allowed) == 0 {
		return "none"
	}
	s := append([]string(nil), allowed...)
	sort.Strings(s)
	return strings.Join(s, ", ")
}
