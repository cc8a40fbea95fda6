package pipeline

// Owner is what renders an object in a whole tree: an Argo CD Application
// (with its AppProject), a Flux Kustomization or HelmRelease, or an app
// path of `routeguard diff`.
type Owner struct {
	Kind    string `json:"kind"` // "Application", "Kustomization", "HelmRelease", "path"
	Name    string `json:"name"` // "namespace/name", or the path
	Project string `json:"project,omitempty"`
}

// String renders the owner for messages: "Application argocd/web (project teams)".
func (o Owner) String() string {
	s := o.Kind + " " + o.Name
	if o.Project != "" {
		s += " (project " + o.Project + ")"
	}
	return s
}
