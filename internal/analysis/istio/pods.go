package istio

import (
	"strings"

	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/collections"

	"github.com/routeguard/routeguard/internal/manifest"
)

// templatePaths says where each workload kind keeps its pod template.
var templatePaths = map[manifest.GroupKind][]string{
	{Group: "apps", Kind: "Deployment"}:        {"spec", "template"},
	{Group: "apps", Kind: "StatefulSet"}:       {"spec", "template"},
	{Group: "apps", Kind: "DaemonSet"}:         {"spec", "template"},
	{Group: "apps", Kind: "ReplicaSet"}:        {"spec", "template"},
	{Group: "", Kind: "ReplicationController"}: {"spec", "template"},
	{Group: "batch", Kind: "Job"}:              {"spec", "template"},
	{Group: "batch", Kind: "CronJob"}:          {"spec", "jobTemplate", "spec", "template"},
}

// isWorkload reports whether o is a Pod or a kind that creates Pods.
func isWorkload(o *manifest.Object) bool {
	if o.Kind == "Pod" && o.Group() == "" {
		return true
	}
	_, ok := templatePaths[o.GroupKind()]
	return ok
}

// syntheticPodName names the Pod standing in for workload o. The suffix keeps
// it apart from any real Pod of the same name.
func syntheticPodName(o *manifest.Object) string {
	return o.Name + ".routeguard-" + strings.ToLower(o.Kind)
}

// podFromTemplate builds the Pod a workload's template implies: its labels,
// annotations, namespace and pod spec (containers, ports, security context).
// It returns false when o is not a workload or its template does not decode
// (the workload itself is then reported by the schema check).
func podFromTemplate(o *manifest.Object, ns string) (*config.Config, bool) {
	path, ok := templatePaths[o.GroupKind()]
	if !ok {
		return nil, false
	}
	var cur any = o.Body
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur = m[p]
	}
	tmpl, ok := cur.(map[string]any)
	if !ok {
		return nil, false
	}
	cfg, err := toConfig(collections.Pod, tmpl, syntheticPodName(o), ns)
	if err != nil {
		return nil, false
	}
	return cfg, true
}
