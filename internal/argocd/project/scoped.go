package project

import (
	"encoding/base64"
	"slices"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Argo CD adds a project's scoped repositories to its sourceRepos and its
// scoped clusters to its destinations (util/argo GetAppProjectByName:
// repository and cluster Secrets whose data names the project): a chart
// repository declared as a repository Secret with project: k3s is
// permitted in k3s without an entry in spec.sourceRepos.

const secretTypeLabel = "argocd.argoproj.io/secret-type"

// AddScoped reads a repository or cluster Secret (in Argo CD's namespace)
// and, when it names a project, adds its URL to that project's source
// repositories or its server to its destinations. It reports whether o was
// one.
func (x *Index) AddScoped(o *manifest.Object) bool {
	if o.Group() != "" || o.Kind != "Secret" || (o.Namespace != "" && o.Namespace != x.Namespace) {
		return false
	}
	typ := o.Labels()[secretTypeLabel]
	if typ != "repository" && typ != "cluster" {
		return false
	}
	project := secretValue(o, "project")
	if project == "" {
		return false
	}
	if x.scopedRepos == nil {
		x.scopedRepos, x.scopedDests = map[string][]string{}, map[string][]Destination{}
	}
	switch typ {
	case "repository":
		if url := secretValue(o, "url"); url != "" && !slices.Contains(x.scopedRepos[project], url) {
			x.scopedRepos[project] = append(x.scopedRepos[project], url)
		}
	case "cluster":
		if server := secretValue(o, "server"); server != "" {
			x.scopedDests[project] = append(x.scopedDests[project], Destination{Server: server, Namespace: "*"})
		}
	}
	return true
}

// secretValue reads a Secret key from stringData, else from data.
func secretValue(o *manifest.Object, key string) string {
	if v := field.String(o.Body, "stringData", key); v != "" {
		return v
	}
	if b, err := base64.StdEncoding.DecodeString(field.String(o.Body, "data", key)); err == nil {
		return string(b)
	}
	return ""
}

// withScoped returns p with its scoped repositories and clusters added.
func (x *Index) withScoped(p *Project) *Project {
	repos, dests := x.scopedRepos[p.Name], x.scopedDests[p.Name]
	if len(repos)+len(dests) == 0 {
		return p
	}
	c := *p
	c.Spec.SourceRepos = append(slices.Clone(p.Spec.SourceRepos), repos...)
	c.Spec.Destinations = append(slices.Clone(p.Spec.Destinations), dests...)
	return &c
}
