package project

import (
	"encoding/json"
	"fmt"

	"github.com/routeguard/routeguard/internal/manifest"
)

// DefaultName is the project of an Application that names none.
const DefaultName = "default"

// Project is one AppProject and where it was read.
type Project struct {
	Name      string
	Namespace string
	Spec      Spec
	// Object is the manifest (nil for the built-in default project).
	Object *manifest.Object
	// Origin says where it came from, for messages: "" (a manifest of the
	// repository), "rendered by Application ns/name", "--project-file".
	Origin string
}

// Spec is the part of an AppProject's spec that decides what may be
// synced (argoproj.io/v1alpha1 AppProjectSpec). Namespace resource lists
// keep nil (not set: everything allowed) apart from empty (nothing).
type Spec struct {
	SourceRepos                     []string          `json:"sourceRepos,omitempty"`
	Destinations                    []Destination     `json:"destinations,omitempty"`
	SourceNamespaces                []string          `json:"sourceNamespaces,omitempty"`
	ClusterResourceWhitelist        []ClusterResource `json:"clusterResourceWhitelist,omitempty"`
	ClusterResourceBlacklist        []ClusterResource `json:"clusterResourceBlacklist,omitempty"`
	NamespaceResourceWhitelist      []GroupKind       `json:"namespaceResourceWhitelist"`
	NamespaceResourceBlacklist      []GroupKind       `json:"namespaceResourceBlacklist,omitempty"`
	PermitOnlyProjectScopedClusters bool              `json:"permitOnlyProjectScopedClusters,omitempty"`
	SyncWindows                     []SyncWindow      `json:"syncWindows,omitempty"`
}

// Destination is one of spec.destinations.
type Destination struct {
	Server    string `json:"server,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// GroupKind is one entry of the namespace resource lists.
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// ClusterResource is one entry of the cluster resource lists; Name (3.x)
// narrows it to objects whose name matches (filepath.Match), "" all.
type ClusterResource struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name,omitempty"`
}

// SyncWindow is one of spec.syncWindows.
type SyncWindow struct {
	Kind           string   `json:"kind,omitempty"`
	Schedule       string   `json:"schedule,omitempty"`
	Duration       string   `json:"duration,omitempty"`
	Applications   []string `json:"applications,omitempty"`
	Namespaces     []string `json:"namespaces,omitempty"`
	Clusters       []string `json:"clusters,omitempty"`
	ManualSync     bool     `json:"manualSync,omitempty"`
	TimeZone       string   `json:"timeZone,omitempty"`
	UseAndOperator bool     `json:"andOperator,omitempty"`
	Description    string   `json:"description,omitempty"`
	SyncOverrun    bool     `json:"syncOverrun,omitempty"`
}

// IsProject reports whether o is an AppProject.
func IsProject(o *manifest.Object) bool {
	return o.Group() == "argoproj.io" && o.Kind == "AppProject"
}

// Decode reads an AppProject manifest. Its spec decodes as Argo CD's
// (sigs.k8s.io/yaml, then encoding/json): a list written as [] is empty,
// one left out or null is not set.
func Decode(o *manifest.Object, origin string) (*Project, error) {
	p := &Project{Name: o.Name, Namespace: o.Namespace, Object: o, Origin: origin}
	spec, ok := o.Body["spec"]
	if !ok || spec == nil {
		return p, nil
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: AppProject %s: %w", o.Source, o.Name, err)
	}
	if err := json.Unmarshal(data, &p.Spec); err != nil {
		return nil, fmt.Errorf("%s: AppProject %s: spec does not decode as Argo CD's AppProjectSpec: %w", o.Source, o.Name, err)
	}
	return p, nil
}

// Default is the project Argo CD creates when none named default exists
// (argocd-server's initialization): everything allowed.
func Default(namespace string) *Project {
	return &Project{Name: DefaultName, Namespace: namespace, Origin: "built-in", Spec: Spec{
		SourceRepos:              []string{"*"},
		Destinations:             []Destination{{Server: "*", Namespace: "*"}},
		ClusterResourceWhitelist: []ClusterResource{{Group: "*", Kind: "*"}},
	}}
}

// Where returns the file:line of the rule at path ("spec.destinations[2]")
// in the project's manifest, or a description of a project without one.
func (p *Project) Where(path string) string {
	if p.Object == nil {
		return "the default AppProject Argo CD creates (none in the repository)"
	}
	return p.Object.FieldSource(path).String()
}
