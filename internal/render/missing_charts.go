package render

import (
	"cmp"
	"fmt"
	"path/filepath"

	yaml "go.yaml.in/yaml/v3"
)

// notDownloaded says why a Kustomize helmCharts chart that is not in the
// repository is not rendered, and what to do.
const notDownloaded = "routeguard does not download the charts of Kustomize helmCharts (--allow-network or not); vendor the chart under the kustomization's chart home (charts/, for example with helm pull --untar --untardir charts)"

// MissingChart is a Kustomize helmCharts entry whose chart is not in the
// repository (Kustomize would run helm pull, which routeguard never does).
type MissingChart struct {
	File    string // the kustomization, relative to the repository root
	Line    int
	Name    string
	Repo    string
	Version string
	// Namespace is where its objects would go: the entry's namespace, else
	// the kustomization's namespace field ("" when neither names one).
	Namespace string
}

func (m MissingChart) String() string {
	s := fmt.Sprintf("%s:%d: chart %s", m.File, m.Line, m.Name)
	if m.Version != "" {
		s += " " + m.Version
	}
	if m.Repo != "" {
		s += " from " + m.Repo
	}
	return s
}

// dropMissingCharts removes from the kustomization at file (parsed: m)
// the helmCharts entries whose chart is not where Kustomize looks for it
// (chartHome/[name-version/]name, as HelmChartInflationGenerator's
// chartExistsLocally), recording each.
func (c *confinedFS) dropMissingCharts(file string, m *yaml.Node) {
	charts := mappingValue(m, "helmCharts")
	if charts == nil || charts.Kind != yaml.SequenceNode {
		return
	}
	home := "charts"
	if g := mappingValue(m, "helmGlobals"); g != nil {
		if n := mappingValue(g, "chartHome"); n != nil && n.Value != "" {
			home = n.Value
		}
	}
	home = filepath.Join(filepath.Dir(file), filepath.FromSlash(home))
	value := func(item *yaml.Node, key string) string {
		if n := mappingValue(item, key); n != nil && n.Kind == yaml.ScalarNode {
			return n.Value
		}
		return ""
	}
	kept := charts.Content[:0]
	for _, item := range charts.Content {
		name, repo, version := value(item, "name"), value(item, "repo"), value(item, "version")
		dir := home
		if version != "" && repo != "" {
			dir = filepath.Join(home, name+"-"+version)
		}
		if name == "" || c.IsDir(filepath.Join(dir, name)) {
			kept = append(kept, item)
			continue
		}
		mc := MissingChart{File: c.root.rel(file), Line: item.Line, Name: name, Repo: repo, Version: version, Namespace: cmp.Or(value(item, "namespace"), value(m, "namespace"))}
		if !c.missingSeen[mc] {
			c.missingSeen[mc] = true
			c.missing = append(c.missing, mc)
		}
	}
	charts.Content = kept
}
