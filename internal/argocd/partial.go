package argocd

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/render"
)

// LeftOut says, one warning per part, what the Application's sources were
// rendered without (partly rendered, for the analysis only): Kustomize
// helmCharts charts that are not in the repository, and what its
// kustomizations name remotely when the network is not allowed.
func (a *AppResult) LeftOut() []notice.Notice {
	var out []notice.Notice
	ns := a.App.Spec.Destination.Namespace
	for _, s := range a.Sources {
		for _, mc := range s.MissingCharts {
			out = append(out, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
				"Application %s: partly rendered: %s is not in the repository (Kustomize helmCharts; routeguard never downloads them, Argo CD's repo-server would pull it); the rest of the app is checked, what the chart deploys in namespace %q cannot be; vendor it under the kustomization's chart home (helm pull --untar --untardir charts/%s-%s) to check it",
				a.App.Key(), mc, cmp.Or(mc.Namespace, ns, "*"), mc.Name, mc.Version)})
		}
		if md := s.MissingDependencies; md != nil {
			out = append(out, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
				"Application %s: partly rendered: chart %s is rendered without its dependencies %s (%s); Argo CD's repo-server would build them (helm dependency build); the chart's own templates are checked, what the dependencies deploy in namespace %q cannot be; pass --fetch-charts (and --chart-cache DIR), or vendor them under charts/",
				a.App.Key(), md.Chart, dependencyNames(md), md.Error(), cmp.Or(ns, "*"))})
		}
		for _, r := range s.Remote {
			what := "the rest of the app is checked"
			if r.AddsObjects() {
				what = fmt.Sprintf("the rest of the app is checked, what it adds in namespace %q cannot be", cmp.Or(ns, "*"))
			}
			out = append(out, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
				"Application %s: partly rendered: %s, which routeguard does not fetch offline (Argo CD's repo-server would); %s; pass --allow-network to fetch it",
				a.App.Key(), r, what)})
		}
	}
	return out
}

// dependencyNames names chart dependencies, for messages.
func dependencyNames(m *render.MissingDependenciesError) string {
	parts := make([]string, len(m.Missing))
	for i, d := range m.Missing {
		parts[i] = d.Name + " " + d.Version
	}
	return strings.Join(parts, ", ")
}
