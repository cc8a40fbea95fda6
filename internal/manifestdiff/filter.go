package manifestdiff

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The noise filters every comparison applies, by the name the review
// gives them: fields that change with every chart release or every
// config change without changing what runs.
const (
	FilterChartLabel   = "label helm.sh/chart"
	FilterVersionLabel = "label app.kubernetes.io/version"
	FilterChecksum     = "annotations checksum/*"
)

// DefaultFilters are the names of the filters always applied, in the
// order the review lists them.
var DefaultFilters = []string{FilterChartLabel, FilterVersionLabel, FilterChecksum}

// noiseLabels are the labels the default filters take out.
var noiseLabels = map[string]string{"helm.sh/chart": FilterChartLabel, "app.kubernetes.io/version": FilterVersionLabel}

// metadataBlocks are the object's metadata and those of the templates it
// stamps objects from (pod templates of workloads, a CronJob's job and
// pod templates, a StatefulSet's volume claims), where charts put the
// same labels and checksums.
func metadataBlocks(body map[string]any) []map[string]any {
	var out []map[string]any
	add := func(v any) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	add(body["metadata"])
	spec, _ := body["spec"].(map[string]any)
	if spec == nil {
		return out
	}
	if t, ok := spec["template"].(map[string]any); ok {
		add(t["metadata"])
	}
	if jt, ok := spec["jobTemplate"].(map[string]any); ok {
		add(jt["metadata"])
		if js, ok := jt["spec"].(map[string]any); ok {
			if t, ok := js["template"].(map[string]any); ok {
				add(t["metadata"])
			}
		}
	}
	if vcts, ok := spec["volumeClaimTemplates"].([]any); ok {
		for _, v := range vcts {
			if m, ok := v.(map[string]any); ok {
				add(m["metadata"])
			}
		}
	}
	return out
}

// filterNoise takes the default filters' fields out of body (a copy) and
// returns the names of the filters that removed something.
func filterNoise(body map[string]any) []string {
	hit := map[string]bool{}
	for _, md := range metadataBlocks(body) {
		if labels, ok := md["labels"].(map[string]any); ok {
			for k, name := range noiseLabels {
				if _, ok := labels[k]; ok {
					delete(labels, k)
					hit[name] = true
				}
			}
			if len(labels) == 0 {
				delete(md, "labels")
			}
		}
		if ann, ok := md["annotations"].(map[string]any); ok {
			for k := range ann {
				if strings.HasPrefix(k, "checksum/") {
					delete(ann, k)
					hit[FilterChecksum] = true
				}
			}
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
	}
	return slices.Sorted(maps.Keys(hit))
}

// filterPointers removes what the pointers that match the object name
// and returns how each was named (its From and path) for those that
// removed something.
func filterPointers(body map[string]any, group, kind, namespace, name string, pointers []Pointer) []string {
	var hit []string
	for _, p := range pointers {
		if p.matches(group, kind, namespace, name) && remove(body, p.Path) {
			hit = append(hit, p.From+" "+p.Path)
		}
	}
	return hit
}

// IgnoreDifferences reads an Argo CD Application's spec.ignoreDifferences
// (app is the Application's body) as pointers for the objects it renders,
// From naming the Application (from, "Application argocd/web"), and says
// in notices what of it cannot be applied: jqPathExpressions (routeguard
// evaluates no jq) and managedFieldsManagers (rendered manifests have no
// managed fields: nothing to ignore), and entries of the wrong shape.
func IgnoreDifferences(app map[string]any, from string) ([]Pointer, []Notice) {
	spec, _ := app["spec"].(map[string]any)
	list, ok := spec["ignoreDifferences"].([]any)
	if !ok {
		if spec["ignoreDifferences"] != nil {
			return nil, []Notice{{Level: LevelWarning, Text: from + ": spec.ignoreDifferences is not a list; it is not applied to the manifest diff"}}
		}
		return nil, nil
	}
	var out []Pointer
	var notices []Notice
	for i, e := range list {
		entry, ok := e.(map[string]any)
		if !ok {
			notices = append(notices, Notice{Level: LevelWarning, Text: fmt.Sprintf("%s: spec.ignoreDifferences[%d] is not an object; it is not applied to the manifest diff", from, i)})
			continue
		}
		str := func(k string) string { s, _ := entry[k].(string); return s }
		scope := Pointer{Group: str("group"), Kind: str("kind"), Name: str("name"), Namespace: str("namespace"), From: from + " ignoreDifferences"}
		if scope.Kind == "" {
			scope.Kind = "*" // Argo CD requires kind; an entry without one is taken as every kind rather than none
		}
		what := fmt.Sprintf("%s: spec.ignoreDifferences[%d] (%s)", from, i, scopeString(scope))
		for _, p := range stringList(entry["jsonPointers"]) {
			if _, err := splitPointer(p); err != nil {
				notices = append(notices, Notice{Level: LevelWarning, Text: fmt.Sprintf("%s: %v; not applied", what, err)})
				continue
			}
			ptr := scope
			ptr.Path = p
			out = append(out, ptr)
		}
		if jq := stringList(entry["jqPathExpressions"]); len(jq) > 0 {
			notices = append(notices, Notice{Level: LevelNote, Text: fmt.Sprintf("%s: jqPathExpressions %s not applied to the manifest diff (routeguard evaluates no jq); the fields they name are shown", what, quoteAll(jq))})
		}
		if m := stringList(entry["managedFieldsManagers"]); len(m) > 0 {
			notices = append(notices, Notice{Level: LevelNote, Text: fmt.Sprintf("%s: managedFieldsManagers apply to live objects only; rendered manifests have no managed fields", what)})
		}
	}
	return out, notices
}

func scopeString(p Pointer) string {
	s := p.Kind
	if p.Group != "" {
		s += "." + p.Group
	}
	if p.Namespace != "" || p.Name != "" {
		s += " " + p.Namespace + "/" + p.Name
	}
	return s
}

// stringList is a list of strings from YAML (other entries left out).
func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
