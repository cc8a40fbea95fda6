package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/routing"
)

// kind is one generated check: which template, and the values put into it.
type kind struct {
	group, kind, apiVersion string
	template                string // route, gateway or istio
	list, ref, specRefs     string // route template only
	needResolved            bool   // route template only
	// skipStale: route template only; entries whose Accepted is stale are
	// left aside while another entry is current (Argo CD's route checks do
	// the same; its BackendTLSPolicy check waits for every ancestor).
	skipStale bool
}

// kinds returns every generated check, in routing.HealthChecked's order:
// the template values of each come from its routing.Kinds entry.
func kinds() ([]kind, error) {
	var out []kind
	for _, gk := range routing.HealthChecked {
		rk, _ := routing.Lookup(gk)
		h := rk.Health
		switch h.Template {
		case "route", "gateway", "istio":
		default:
			return nil, fmt.Errorf("%s %s: routing.Kinds names health template %q; want route, gateway or istio", gk.Group, gk.Kind, h.Template)
		}
		out = append(out, kind{group: gk.Group, kind: gk.Kind, apiVersion: gk.Group + "/v1", template: h.Template,
			list: h.List, ref: h.Ref, specRefs: h.SpecRefs, needResolved: h.NeedResolved, skipStale: h.SkipStale})
	}
	return out, nil
}

// Files returns the generated files (health.lua and health.cel.yaml of
// every kind), keyed by their path relative to root (the lua-health
// directory, whose _templates it reads).
func Files(root string) (map[string]string, error) {
	ks, err := kinds()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, k := range ks {
		tmpl, err := os.ReadFile(filepath.Join(root, "_templates", k.template+".lua"))
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(k.group, k.kind)
		out[filepath.Join(dir, "health.lua")] = renderLua(string(tmpl), k)
		out[filepath.Join(dir, "health.cel.yaml")] = renderCEL(k)
	}
	return out, nil
}

// renderLua fills a Lua template's placeholders for k.
func renderLua(tmpl string, k kind) string {
	resolvedDoc, resolvedMsg := " and ResolvedRefs", " with resolved references"
	hint := "no Gateway API controller handles it, or the parentRef does not match any Gateway (check name, namespace, sectionName and port)"
	waitDoc := "status absent, no status." + k.list + ", or a spec." + k.specRefs + " entry without status"
	staleDoc := "An entry whose Accepted is stale is left\n-- aside while another entry is current (its controller may never update it); with no current\n-- entry the object waits."
	if !k.skipStale {
		staleDoc = "Until every entry is current the object waits."
	}
	if !k.needResolved {
		resolvedDoc, resolvedMsg = " (and ResolvedRefs, when reported,)", ""
		hint = "no Gateway API controller handles it, or no Gateway uses a target of this policy (check spec.targetRefs)"
		waitDoc = "status absent or no status." + k.list
	}
	r := strings.NewReplacer(
		"__KIND__", k.kind,
		"__LIST__", k.list,
		"__REF__", k.ref,
		"__SPECREFS__", k.specRefs,
		"__NEEDRESOLVED__", fmt.Sprint(k.needResolved),
		"__SKIPSTALE__", fmt.Sprint(k.skipStale),
		"__STALEDOC__", staleDoc,
		"__WHO__", strings.TrimSuffix(k.list, "s"),
		"__RESOLVEDDOC__", resolvedDoc,
		"__RESOLVEDMSG__", resolvedMsg,
		"__WAITDOC__", waitDoc,
		"__HINT__", hint,
	)
	return r.Replace(tmpl)
}
