package flux

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// A mutating admission webhook can write postBuild variables into every
// Flux Kustomization at run time: xunholy's fluxcd-kustomize-mutating-webhook
// adds spec.postBuild (when absent) and, to spec.postBuild.substitute, every
// key of the ConfigMaps and Secrets its values name (configMaps[].name,
// secrets[].name, in its release namespace), overriding keys of the same
// name. A tree that installs it sets those variables for each Kustomization
// without saying so in the Kustomization; routeguard does what the webhook
// does, so that ${SECRET_DOMAIN} in an app without postBuild is not a false
// strict-substitution error or a hostname with "${" in it.

const substitutionWebhookChart = "kustomize-mutating-webhook"

// substitutionWebhook is such a webhook the tree installs.
type substitutionWebhook struct {
	by         string   // "HelmRelease flux-system/kustomize-mutating-webhook"
	namespace  string   // where it reads its ConfigMaps and Secrets
	configMaps []string // names; nil with secrets: not known
	secrets    []string
}

// webhook finds the substitution webhook among what the tree applies.
func (b *sources) webhook() *substitutionWebhook {
	for _, hr := range b.state.set.ByKind(HelmGroup, "HelmRelease") {
		if !b.isSubstitutionWebhook(hr) {
			continue
		}
		w := &substitutionWebhook{by: hr.String(), namespace: cmp.Or(field.String(hr.Body, "spec", "targetNamespace"), hr.Namespace)}
		values := map[string]any{}
		for _, r := range field.Maps(hr.Body, "spec", "valuesFrom") {
			if field.String(r, "kind") != "ConfigMap" {
				continue
			}
			if cm, ok := b.state.lookup("ConfigMap", hr.Namespace, field.String(r, "name")); ok {
				var v map[string]any
				if yaml.Unmarshal([]byte(configMapData(cm)[cmp.Or(field.String(r, "valuesKey"), "values.yaml")]), &v) == nil {
					maps.Copy(values, v)
				}
			}
		}
		maps.Copy(values, field.Map(hr.Body, "spec", "values"))
		for _, c := range field.Maps(values, "configMaps") {
			if name := field.String(c, "name"); name != "" {
				w.configMaps = append(w.configMaps, name)
			}
		}
		for _, s := range field.Maps(values, "secrets") {
			if name := field.String(s, "name"); name != "" {
				w.secrets = append(w.secrets, name)
			}
		}
		return w
	}
	return nil
}

// isSubstitutionWebhook reports whether a HelmRelease installs the webhook
// (its chart's name, or its OCIRepository's URL, names it).
func (b *sources) isSubstitutionWebhook(hr *manifest.Object) bool {
	if strings.HasSuffix(field.String(hr.Body, "spec", "chart", "spec", "chart"), substitutionWebhookChart) {
		return true
	}
	ref := field.Map(hr.Body, "spec", "chartRef")
	if field.String(ref, "kind") != "OCIRepository" {
		return false
	}
	oci, ok := b.state.source(SourceGroup, "OCIRepository", cmp.Or(field.String(ref, "namespace"), hr.Namespace), field.String(ref, "name"))
	return ok && strings.Contains(field.String(oci.Body, "spec", "url"), substitutionWebhookChart)
}

// mutate does to a Kustomization what the webhook does on admission: a
// postBuild when there is none, and the keys of its ConfigMaps and Secrets
// in postBuild.substitute. Sources only the cluster has (a Secret an
// ExternalSecret makes) give placeholders for the variables the build
// uses and nothing else sets; they are recorded like substituteFrom
// sources only the cluster has.
func (b *sources) mutate(n *Node, w *substitutionWebhook, ks *kustomizev1.Kustomization, body map[string]any, set *manifest.Set) {
	vars := map[string]string{}
	var unread []*clusterSource
	read := func(kind, name string) {
		key := nsName{w.namespace, name}
		if kind == "Secret" {
			if by, ok := b.state.madeBy(key.ns, key.name); ok {
				unread = append(unread, &clusterSource{Kind: kind, Key: key, Why: "made in the cluster by " + by + ", and " + w.by + " (a mutating webhook) writes its keys into every Kustomization"})
				return
			}
		}
		o, ok := b.state.lookup(kind, key.ns, key.name)
		switch {
		case ok && kind == "ConfigMap":
			maps.Copy(vars, configMapData(o))
		case ok && !field.Has(o.Body, "sops"):
			if data, err := secretData(o); err == nil {
				for k, v := range data {
					vars[k] = string(v)
				}
			}
		default:
			unread = append(unread, &clusterSource{Kind: kind, Key: key, Why: "only in the cluster, and " + w.by + " (a mutating webhook) writes its keys into every Kustomization"})
		}
	}
	for _, name := range w.configMaps {
		read("ConfigMap", name)
	}
	for _, name := range w.secrets {
		read("Secret", name)
	}
	if len(w.configMaps)+len(w.secrets) == 0 {
		unread = append(unread, &clusterSource{Kind: "ConfigMap", Key: nsName{w.namespace, "(the webhook's)"}, Why: "not known: " + w.by + " (a mutating webhook) writes variables into every Kustomization from sources its values do not name here"})
	}
	if ks.Spec.PostBuild == nil {
		ks.Spec.PostBuild = &kustomizev1.PostBuild{}
	}
	if ks.Spec.PostBuild.Substitute == nil {
		ks.Spec.PostBuild.Substitute = map[string]string{}
	}
	if len(unread) > 0 {
		for _, v := range variablesWithoutDefault(set) {
			if _, ok := vars[v]; !ok && ks.Spec.PostBuild.Substitute[v] == "" && b.opts.Vars[v] == "" {
				vars[v] = Placeholder(v)
				unread[0].Placeholders = append(unread[0].Placeholders, v)
			}
		}
		for k, v := range b.opts.Vars {
			if _, ok := vars[k]; !ok {
				vars[k] = v
			}
		}
	}
	maps.Copy(ks.Spec.PostBuild.Substitute, vars)
	pb := field.EnsureMap(body, "spec", "postBuild")
	sub := field.EnsureMap(pb, "substitute")
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		sub[k] = vars[k]
	}
	n.clusterSources = append(n.clusterSources, unread...)
	n.mutatedBy = w.by
}

// webhookNote says what the webhook did, once per tree.
func webhookNote(w *substitutionWebhook, count int) string {
	from := append(prefixed("ConfigMap ", w.namespace, w.configMaps), prefixed("Secret ", w.namespace, w.secrets)...)
	what := "sources its values do not name here"
	if len(from) > 0 {
		what = strings.Join(from, ", ")
	}
	return fmt.Sprintf("%s is a mutating webhook that writes postBuild variables into every Flux Kustomization at run time (from %s); routeguard did the same for %d Kustomizations", w.by, what, count)
}

func prefixed(kind, ns string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = kind + ns + "/" + n
	}
	return out
}
