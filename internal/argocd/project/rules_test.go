package project

import (
	"os"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestGroupKindPermitted(t *testing.T) {
	tests := []struct {
		name       string
		spec       Spec
		group      string
		kind       string
		objName    string
		namespaced bool
		want       bool
		rule       string
	}{
		{name: "namespaced, whitelist not set", spec: Spec{}, kind: "ConfigMap", namespaced: true, want: true, rule: "spec.namespaceResourceWhitelist"},
		{name: "namespaced, whitelist empty", spec: Spec{NamespaceResourceWhitelist: []GroupKind{}}, kind: "ConfigMap", namespaced: true, rule: "spec.namespaceResourceWhitelist"},
		{name: "namespaced, listed", spec: Spec{NamespaceResourceWhitelist: []GroupKind{{Group: "apps", Kind: "Deployment"}, {Group: "networking.k8s.io", Kind: "Ingress"}}},
			group: "networking.k8s.io", kind: "Ingress", namespaced: true, want: true, rule: "spec.namespaceResourceWhitelist[1]"},
		{name: "namespaced, not listed", spec: Spec{NamespaceResourceWhitelist: []GroupKind{{Group: "networking.k8s.io", Kind: "Ingress"}}},
			group: "gateway.networking.k8s.io", kind: "Gateway", namespaced: true, rule: "spec.namespaceResourceWhitelist"},
		{name: "blacklist wins over whitelist", spec: Spec{NamespaceResourceWhitelist: []GroupKind{{Group: "*", Kind: "*"}}, NamespaceResourceBlacklist: []GroupKind{{Group: "", Kind: "Secret"}}},
			kind: "Secret", namespaced: true, rule: "spec.namespaceResourceBlacklist[0]"},
		{name: "blacklist glob", spec: Spec{NamespaceResourceBlacklist: []GroupKind{{Group: "*", Kind: "*Policy"}}},
			group: "networking.k8s.io", kind: "NetworkPolicy", namespaced: true, rule: "spec.namespaceResourceBlacklist[0]"},
		{name: "filepath glob does not match across dots differently", spec: Spec{NamespaceResourceWhitelist: []GroupKind{{Group: "?pps", Kind: "Deploy[a-z]ent"}}},
			group: "apps", kind: "Deployment", namespaced: true, want: true, rule: "spec.namespaceResourceWhitelist[0]"},
		{name: "bad pattern matches nothing", spec: Spec{NamespaceResourceWhitelist: []GroupKind{{Group: "*", Kind: "[a-"}}},
			kind: "ConfigMap", namespaced: true, rule: "spec.namespaceResourceWhitelist"},
		{name: "cluster-scoped, whitelist not set", spec: Spec{}, kind: "Namespace", rule: "spec.clusterResourceWhitelist"},
		{name: "cluster-scoped, whitelist glob", spec: Spec{ClusterResourceWhitelist: []ClusterResource{{Group: "*.k8s.io", Kind: "*"}}},
			group: "rbac.authorization.k8s.io", kind: "ClusterRole", want: true, rule: "spec.clusterResourceWhitelist[0]"},
		{name: "cluster-scoped, name rule matches", spec: Spec{ClusterResourceWhitelist: []ClusterResource{{Kind: "Namespace", Name: "team-*"}}},
			kind: "Namespace", objName: "team-a", want: true, rule: "spec.clusterResourceWhitelist[0]"},
		{name: "cluster-scoped, name rule does not match", spec: Spec{ClusterResourceWhitelist: []ClusterResource{{Kind: "Namespace", Name: "team-*"}}},
			kind: "Namespace", objName: "kube-system", rule: "spec.clusterResourceWhitelist"},
		{name: "cluster-scoped, named blacklist", spec: Spec{ClusterResourceWhitelist: []ClusterResource{{Kind: "Namespace"}},
			ClusterResourceBlacklist: []ClusterResource{{Kind: "Namespace", Name: "team-admin"}}}, kind: "Namespace", objName: "team-admin", rule: "spec.clusterResourceBlacklist[0]"},
		{name: "namespaced kind ignores cluster lists", spec: Spec{ClusterResourceBlacklist: []ClusterResource{{Group: "*", Kind: "*"}}},
			kind: "Service", namespaced: true, want: true, rule: "spec.namespaceResourceWhitelist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Project{Name: "p", Spec: tt.spec}
			v := p.GroupKindPermitted(tt.group, tt.kind, tt.objName, tt.namespaced)
			if v.Permitted != tt.want || v.Rule != tt.rule {
				t.Errorf("GroupKindPermitted = %v (%s), want %v (%s)", v.Permitted, v.Rule, tt.want, tt.rule)
			}
		})
	}
}

func TestDestinationPermitted(t *testing.T) {
	inCluster := Cluster{Server: "https://kubernetes.default.svc", Name: "in-cluster", ServerKnown: true, NameKnown: true}
	prod := Cluster{Server: "https://prod.example.com", Name: "prod", ServerKnown: true, NameKnown: true}
	tests := []struct {
		name    string
		dests   []Destination
		cluster Cluster
		ns      string
		want    bool
		rule    string
	}{
		{name: "none", cluster: inCluster, ns: "a", rule: "spec.destinations"},
		{name: "server and namespace", dests: []Destination{{Server: "https://kubernetes.default.svc", Namespace: "team-*"}}, cluster: inCluster, ns: "team-a", want: true, rule: "spec.destinations[0]"},
		{name: "name matches though the Application gives the server", dests: []Destination{{Name: "in-cluster", Namespace: "*"}}, cluster: inCluster, ns: "x", want: true, rule: "spec.destinations[0]"},
		{name: "namespace deny after allow", dests: []Destination{{Server: "*", Namespace: "*"}, {Server: "*", Namespace: "!kube-system"}}, cluster: inCluster, ns: "kube-system", rule: "spec.destinations[1]"},
		{name: "namespace deny passes others", dests: []Destination{{Server: "*", Namespace: "*"}, {Server: "*", Namespace: "!kube-system"}}, cluster: inCluster, ns: "web", want: true, rule: "spec.destinations[0]"},
		{name: "server deny", dests: []Destination{{Server: "!https://prod.example.com", Namespace: "*"}, {Server: "*", Namespace: "*"}}, cluster: prod, ns: "web", rule: "spec.destinations[0]"},
		{name: "name deny refuses a cluster known by name too", dests: []Destination{{Name: "!staging", Namespace: "*"}}, cluster: prod, ns: "web", want: true, rule: "spec.destinations[0]"},
		{name: "star matches the empty namespace", dests: []Destination{{Server: "*", Namespace: "*"}}, cluster: inCluster, ns: "", want: true, rule: "spec.destinations[0]"},
		{name: "bad namespace pattern matches nothing", dests: []Destination{{Server: "*", Namespace: "[a-"}}, cluster: inCluster, ns: "a", rule: "spec.destinations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Project{Name: "p", Spec: Spec{Destinations: tt.dests}}
			v := p.DestinationPermitted(tt.cluster, tt.ns)
			if v.Permitted != tt.want || v.Rule != tt.rule {
				t.Errorf("DestinationPermitted = %v (%s), want %v (%s)", v.Permitted, v.Rule, tt.want, tt.rule)
			}
		})
	}
}

func TestSourcePermitted(t *testing.T) {
	tests := []struct {
		repos []string
		url   string
		want  bool
	}{
		{[]string{"https://github.com/acme/*"}, "https://github.com/acme/web", true},
		{[]string{"https://github.com/acme/*"}, "https://GitHub.com/acme/web.git", true},
		{[]string{"https://github.com/acme/*"}, "https://github.com/acme/a/b", false}, // "/" is a separator
		{[]string{"https://github.com/acme/*"}, "https://gitlab.com/acme/web", false},
		{[]string{"https://github.com/acme/*", "!https://github.com/acme/secret*"}, "https://github.com/acme/secret-stuff", false},
		// A "!" entry matches what it does not deny: alone, it permits every other repository.
		{[]string{"!https://github.com/acme/secret*"}, "https://gitlab.com/acme/web", true},
		{[]string{"git@github.com:acme/infra.git"}, "git@github.com:acme/infra.git", true},
		{[]string{"git@github.com:acme/infra.git"}, "ssh://git@github.com/acme/infra", true},
		{[]string{"git@github.com:acme/infra.git"}, "https://github.com/acme/infra", false},
		{nil, "https://github.com/acme/web", false},
	}
	for _, tt := range tests {
		p := &Project{Name: "p", Spec: Spec{SourceRepos: tt.repos}}
		if v := p.SourcePermitted(tt.url); v.Permitted != tt.want {
			t.Errorf("%v: SourcePermitted(%s) = %v (%s), want %v", tt.repos, tt.url, v.Permitted, v.Rule, tt.want)
		}
	}
}

func TestAppNamespacePermitted(t *testing.T) {
	p := &Project{Name: "p", Spec: Spec{SourceNamespaces: []string{"team-*", "/^apps-[0-9]+$/"}}}
	for ns, want := range map[string]bool{"argocd": true, "team-a": true, "apps-12": true, "apps-x": false, "other": false} {
		if v := p.AppNamespacePermitted(ns, "argocd"); v.Permitted != want {
			t.Errorf("AppNamespacePermitted(%s) = %v, want %v", ns, v.Permitted, want)
		}
	}
}

// TestParityTableDecodes reads the table compat/argocd/project runs
// through Argo CD: every project decodes, and the table covers each kind
// of rule.
func TestParityTableDecodes(t *testing.T) {
	data, err := os.ReadFile("testdata/parity.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Projects []struct {
			Name string `json:"name"`
			Spec Spec   `json:"spec"`
		} `json:"projects"`
		Destinations []Destination `json:"destinations"`
		Objects      []struct {
			Kind string `json:"kind"`
		} `json:"objects"`
	}
	if err := yaml.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	var nilList, emptyList, windows bool
	for _, p := range table.Projects {
		nilList = nilList || p.Spec.NamespaceResourceWhitelist == nil
		emptyList = emptyList || (p.Spec.NamespaceResourceWhitelist != nil && len(p.Spec.NamespaceResourceWhitelist) == 0)
		windows = windows || len(p.Spec.SyncWindows) > 0
	}
	if len(table.Projects) < 10 || len(table.Destinations) < 5 || len(table.Objects) < 10 || !nilList || !emptyList || !windows {
		t.Errorf("the table lost coverage: %d projects, %d destinations, %d objects, unset list %v, empty list %v, windows %v",
			len(table.Projects), len(table.Destinations), len(table.Objects), nilList, emptyList, windows)
	}
}

// A repository Secret scoped to a project adds its URL to the project's
// source repositories, a cluster Secret its server to its destinations,
// as Argo CD's GetAppProjectByName does; a Secret of another namespace or
// naming no project does not.
func TestScopedRepositoriesAndClusters(t *testing.T) {
	x := NewIndex("argocd")
	x.Add(&Project{Name: "k3s", Namespace: "argocd", Spec: Spec{SourceRepos: []string{"https://github.com/example/home-ops"}}}, Scanned)
	secret := func(ns, typ, body string) *manifest.Object {
		objs, err := manifest.Decode("s.yaml", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: "+ns+", labels: {argocd.argoproj.io/secret-type: "+typ+"}}\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0]
	}
	for _, o := range []*manifest.Object{
		secret("argocd", "repository", "stringData: {project: k3s, url: https://charts.longhorn.io}\n"),
		secret("argocd", "repository", "data: {project: azNz, url: b2NpOi8vZ2hjci5pby9ncmFmYW5h}\n"),
		secret("argocd", "cluster", "stringData: {project: k3s, server: https://10.0.0.2:6443}\n"),
		secret("other", "repository", "stringData: {project: k3s, url: https://not.argocd.example}\n"),
		secret("argocd", "repository", "stringData: {url: https://no.project.example}\n"),
	} {
		x.AddScoped(o)
	}
	p := x.Lookup("k3s")
	if want := []string{"https://github.com/example/home-ops", "https://charts.longhorn.io", "oci://ghcr.io/grafana"}; !slices.Equal(p.Spec.SourceRepos, want) {
		t.Errorf("sourceRepos %v, want %v", p.Spec.SourceRepos, want)
	}
	if len(p.Spec.Destinations) != 1 || p.Spec.Destinations[0].Server != "https://10.0.0.2:6443" {
		t.Errorf("destinations %+v", p.Spec.Destinations)
	}
}
