package flux

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/notice"
)

// destination names the cluster a node's objects are applied into: ""
// for the cluster the tree runs in, else the kubeConfig (spec.kubeConfig:
// a Secret, or a ConfigMap for workload identity, in the node's
// namespace) of the nearest node, up from n, that names one. A
// Kustomization with spec.kubeConfig applies into that cluster, and what
// it applies there (Flux objects included) is reconciled there; a
// HelmRelease with it installs its chart there (Flux's hub and spoke
// layout). Two nodes applying the same object into two clusters do not
// compete for it.
func destination(n *Node) string {
	for m := n; m != nil; m = m.Parent {
		if m.Object == nil {
			continue
		}
		b := m.Object.Body
		if name := field.String(b, "spec", "kubeConfig", "secretRef", "name"); name != "" {
			dst := "Secret " + m.Object.Namespace + "/" + name
			if key := field.String(b, "spec", "kubeConfig", "secretRef", "key"); key != "" {
				dst += " key " + key
			}
			return dst
		}
		if name := field.String(b, "spec", "kubeConfig", "configMapRef", "name"); name != "" {
			return "ConfigMap " + m.Object.Namespace + "/" + name
		}
	}
	return ""
}

// otherClusterNotice says which objects n applies into its cluster under
// the names of objects another node applies into another cluster: the
// tree's objects hold one copy of each (the first applied), so the other
// is not analyzed. A warning when a copy differs beyond labels and
// annotations (what is not analyzed may then hold what the analyzed one
// does not), a note otherwise.
func otherClusterNotice(n *Node) (notice.Notice, bool) {
	var names []string
	level, first := notice.Note, ""
	for _, d := range n.duplicates {
		if !d.otherCluster {
			continue
		}
		if first == "" {
			first = d.first.describe()
		}
		names = append(names, d.object.String())
		if f := d.first.objectByKey(d.object.Key()); f == nil || !sameButMetadata(f.Body, d.object.Body) {
			level = notice.Warning
		}
	}
	if len(names) == 0 {
		return notice.Notice{}, false
	}
	where := "the cluster Flux runs in"
	if dst := destination(n); dst != "" {
		where = "the cluster of its kubeConfig (" + dst + ")"
	}
	return notice.Notice{Level: level, Text: fmt.Sprintf(
		"%s applies into %s %d object(s) under the names of objects that %s (or another node) applies into another cluster (%s): not a conflict, but routeguard analyzes one copy of each, the first applied, so this node's copies are not analyzed",
		n.describe(), where, len(names), first, strings.Join(firstOf(names, 3), ", "))}, true
}
