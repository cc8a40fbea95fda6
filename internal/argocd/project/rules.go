package project

import "fmt"

// Verdict is the outcome of one rule check and the rule that decided it.
type Verdict struct {
	Permitted bool
	// Rule is the field path of the deciding entry ("spec.destinations[2]")
	// or of the list none of whose entries matched ("spec.destinations").
	Rule string
	// Why says in words how Rule decided, for messages.
	Why string
}

// Cluster is a destination cluster as Argo CD resolves it: both its server
// and its name. NameKnown (ServerKnown) is false when routeguard does not
// know the name (server) of the cluster: it was not given with --cluster.
type Cluster struct {
	Server      string
	Name        string
	ServerKnown bool
	NameKnown   bool
}

// SourcePermitted is IsSourcePermitted: repoURL matches an entry of
// sourceRepos (globs with "/" as separator, normalized as git URLs) and
// no "!" entry denies it.
func (p *Project) SourcePermitted(repoURL string) Verdict {
	src := normalizeGitURL(repoURL)
	matched := -1
	for i, repo := range p.Spec.SourceRepos {
		var normalized string
		if isDenyPattern(repo) {
			normalized = "!" + normalizeGitURL(repo[1:])
		} else {
			normalized = normalizeGitURL(repo)
		}
		ok := projectGlob(normalized, src, true, '/')
		switch {
		case ok:
			if matched < 0 {
				matched = i
			}
		case isDenyPattern(normalized):
			return Verdict{Rule: fmt.Sprintf("spec.sourceRepos[%d]", i), Why: fmt.Sprintf("%q denies it", repo)}
		}
	}
	if matched < 0 {
		return Verdict{Rule: "spec.sourceRepos", Why: "no entry of spec.sourceRepos matches it"}
	}
	return Verdict{Permitted: true, Rule: fmt.Sprintf("spec.sourceRepos[%d]", matched)}
}

// DestinationPermitted is IsDestinationPermitted for a cluster whose name
// is known, without permitOnlyProjectScopedClusters (see Destination).
func (p *Project) DestinationPermitted(c Cluster, namespace string) Verdict {
	matched := -1
	for i, item := range p.Spec.Destinations {
		nameMatched := c.Name != "" && projectGlob(item.Name, c.Name, true)
		serverMatched := c.Server != "" && projectGlob(item.Server, c.Server, true)
		nsMatched := projectGlob(item.Namespace, namespace, true)
		rule := fmt.Sprintf("spec.destinations[%d]", i)
		switch {
		case (serverMatched || nameMatched) && nsMatched:
			if matched < 0 {
				matched = i
			}
		case (!nameMatched && isDenyPattern(item.Name)) || (!serverMatched && isDenyPattern(item.Server)) && nsMatched:
			return Verdict{Rule: rule, Why: "its \"!\" cluster pattern denies the cluster"}
		case !nsMatched && isDenyPattern(item.Namespace) && serverMatched:
			return Verdict{Rule: rule, Why: fmt.Sprintf("namespace %q denies it", item.Namespace)}
		}
	}
	if matched < 0 {
		return Verdict{Rule: "spec.destinations", Why: "no entry of spec.destinations matches it"}
	}
	return Verdict{Permitted: true, Rule: fmt.Sprintf("spec.destinations[%d]", matched)}
}

// GroupKindPermitted is IsGroupKindNamePermitted: a namespaced kind must be
// in namespaceResourceWhitelist (not set: every kind; empty: none) and not
// in namespaceResourceBlacklist; a cluster-scoped one must be in
// clusterResourceWhitelist (empty: none) and not in
// clusterResourceBlacklist, entries with a name matching only objects of
// that name.
func (p *Project) GroupKindPermitted(group, kind, name string, namespaced bool) Verdict {
	if namespaced {
		wl, bl := p.Spec.NamespaceResourceWhitelist, p.Spec.NamespaceResourceBlacklist
		white := -1
		switch {
		case wl == nil:
		case len(wl) == 0:
			return Verdict{Rule: "spec.namespaceResourceWhitelist", Why: "spec.namespaceResourceWhitelist is empty: no namespaced kind is allowed"}
		default:
			if white = inList(group, kind, wl); white < 0 {
				return Verdict{Rule: "spec.namespaceResourceWhitelist", Why: "spec.namespaceResourceWhitelist does not list it"}
			}
		}
		if i := inList(group, kind, bl); i >= 0 {
			return Verdict{Rule: fmt.Sprintf("spec.namespaceResourceBlacklist[%d]", i), Why: "spec.namespaceResourceBlacklist lists it"}
		}
		if white < 0 {
			return Verdict{Permitted: true, Rule: "spec.namespaceResourceWhitelist", Why: "not set: every namespaced kind is allowed"}
		}
		return Verdict{Permitted: true, Rule: fmt.Sprintf("spec.namespaceResourceWhitelist[%d]", white)}
	}
	wl, bl := p.Spec.ClusterResourceWhitelist, p.Spec.ClusterResourceBlacklist
	if len(wl) == 0 {
		return Verdict{Rule: "spec.clusterResourceWhitelist", Why: "spec.clusterResourceWhitelist lists nothing: no cluster-scoped kind is allowed"}
	}
	white := inNamedList(group, kind, name, wl)
	if white < 0 {
		return Verdict{Rule: "spec.clusterResourceWhitelist", Why: "spec.clusterResourceWhitelist does not list it"}
	}
	if i := inNamedList(group, kind, name, bl); i >= 0 {
		return Verdict{Rule: fmt.Sprintf("spec.clusterResourceBlacklist[%d]", i), Why: "spec.clusterResourceBlacklist lists it"}
	}
	return Verdict{Permitted: true, Rule: fmt.Sprintf("spec.clusterResourceWhitelist[%d]", white)}
}

// inList is isResourceInList: the index of the first entry whose kind and
// group patterns (filepath.Match) match, -1 for none.
func inList(group, kind string, list []GroupKind) int {
	for i, item := range list {
		if kindMatch(item.Kind, kind) && kindMatch(item.Group, group) {
			return i
		}
	}
	return -1
}

// inNamedList is isNamedResourceInList.
func inNamedList(group, kind, name string, list []ClusterResource) int {
	for i, item := range list {
		if !kindMatch(item.Kind, kind) || !kindMatch(item.Group, group) {
			continue
		}
		if item.Name == "" || kindMatch(item.Name, name) {
			return i
		}
	}
	return -1
}

// AppNamespacePermitted is IsAppNamespacePermitted: an Application in Argo
// CD's own namespace (controllerNamespace) may use any project; one in
// another namespace only a project whose sourceNamespaces match it (globs,
// or /regular expressions/).
func (p *Project) AppNamespacePermitted(appNamespace, controllerNamespace string) Verdict {
	if appNamespace == "" || appNamespace == controllerNamespace {
		return Verdict{Permitted: true, Rule: "spec.sourceNamespaces", Why: "the Application is in Argo CD's own namespace"}
	}
	if i, ok := matchStringInList(p.Spec.SourceNamespaces, appNamespace); ok {
		return Verdict{Permitted: true, Rule: fmt.Sprintf("spec.sourceNamespaces[%d]", i)}
	}
	return Verdict{Rule: "spec.sourceNamespaces", Why: "no entry of spec.sourceNamespaces matches it"}
}
