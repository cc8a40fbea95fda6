package flux

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/substitute"
)

// PlaceholderPrefix and Placeholder: see the substitute package.
const PlaceholderPrefix = substitute.PlaceholderPrefix

// Placeholder is the value substituted for the cluster-only variable name.
func Placeholder(name string) string { return substitute.Placeholder(name) }

// Why a substituteFrom source is taken as the cluster's.
const (
	whyBuiltAlone        = "built alone"
	whyNotInRepo         = "not in the repository"
	whyOptionalNotInRepo = "optional and not in the repository (routeguard takes it as held by the cluster; if the cluster lacks it too, kustomize-controller leaves those variables as written)"
)

// parentVariables names the stand-in source of what a parent
// Kustomization would supply to one built alone.
const parentVariables = "(variables a parent Kustomization supplies)"

// clusterSource is a substituteFrom source routeguard cannot read.
type clusterSource struct {
	Kind string
	Key  nsName
	Why  string
	// Placeholders are the variables routeguard substituted placeholders
	// for on its behalf.
	Placeholders []string
	values       bool // a valuesFrom source (its values are left out)
}

// postBuild runs Flux's postBuild substitution on a Kustomization's
// objects. substituteFrom sources are read from what the tree applies; a
// required one that routeguard cannot read (made in the cluster, or not in
// the repository) stands for the cluster's: it holds the --var values and
// a placeholder for every variable the objects use without a default that
// nothing else sets.
func (b *nodeRender) postBuild(ctx context.Context, n *Node, ks *kustomizev1.Kustomization, body map[string]any, set *manifest.Set) (*manifest.Set, error) {
	pb := ks.Spec.PostBuild
	src := &substitute.Sources{ConfigMaps: map[substitute.NamespacedName]map[string]string{}, Secrets: map[substitute.NamespacedName]map[string][]byte{}}
	defined := map[string]bool{}
	for k := range pb.Substitute {
		defined[k] = true
	}
	var unread, optional []*clusterSource
	for i, ref := range pb.SubstituteFrom {
		key := nsName{ks.Namespace, ref.Name}
		nn := substitute.NamespacedName{Namespace: key.ns, Name: key.name}
		where := fmt.Sprintf("spec.postBuild.substituteFrom[%d]", i)
		// A Kustomization may apply its own substituteFrom source (the
		// cluster holds it from the previous reconcile).
		lookup := func(kind string) (*manifest.Object, bool) {
			if obj, ok := b.state.lookup(kind, key.ns, key.name); ok {
				return obj, true
			}
			if obj, ok := set.Lookup("", kind, key.ns, key.name); ok {
				return obj, true
			}
			return set.Lookup("", kind, "", key.name)
		}
		switch ref.Kind {
		case "ConfigMap":
			if obj, ok := lookup("ConfigMap"); ok && copiedInCluster(obj) != "" {
				unread = append(unread, &clusterSource{Kind: ref.Kind, Key: key, Why: copiedInCluster(obj)})
				continue
			}
			if obj, ok := lookup("ConfigMap"); ok {
				data := configMapData(obj)
				src.ConfigMaps[nn] = data
				for k := range data {
					defined[k] = true
				}
				continue
			}
		case "Secret":
			if maker, ok := b.state.madeBy(key.ns, key.name); ok {
				unread = append(unread, &clusterSource{Kind: ref.Kind, Key: key, Why: "made in the cluster by " + maker})
				continue
			}
			if obj, ok := lookup("Secret"); ok && field.Has(obj.Body, "sops") {
				unread = append(unread, &clusterSource{Kind: ref.Kind, Key: key, Why: "SOPS-encrypted (" + obj.Source.String() + "; kustomize-controller decrypts it, routeguard cannot)"})
				continue
			}
			if obj, ok := lookup("Secret"); ok && !field.Has(obj.Body, "sops") {
				data, err := secretData(obj)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
				src.Secrets[nn] = data
				for k := range data {
					defined[k] = true
				}
				continue
			}
			// Made by what this Kustomization applies: the cluster holds
			// it from the previous reconcile.
			if maker, ok := madeIn(set.Objects(), key.ns, key.name); ok {
				unread = append(unread, &clusterSource{Kind: ref.Kind, Key: key, Why: "made in the cluster by " + maker + ", which this Kustomization applies"})
				continue
			}
		default:
			return nil, fmt.Errorf("%s: kind %q must be ConfigMap or Secret", where, ref.Kind)
		}
		if ref.Optional {
			// Flux skips a missing optional source and leaves the variables
			// only it would set as written. Whether the cluster holds it
			// routeguard cannot tell (bootstrap often creates flux-system's
			// cluster-settings and cluster-secrets outside the tree): when
			// variables are left without a value, it stands for them.
			optional = append(optional, &clusterSource{Kind: ref.Kind, Key: key, Why: whyOptionalNotInRepo})
			continue
		}
		unread = append(unread, &clusterSource{Kind: ref.Kind, Key: key, Why: whyNotInRepo})
		n.findings = append(n.findings, analysis.Finding{Code: analysis.CodeClusterOnlySource, Object: analysis.RefOf(n.Object), Source: n.Object.Source}.Fill(where, ref.Kind, key.String(),
			"taken as created in the cluster: its variables get --var values or placeholders ("+PlaceholderPrefix+"<name>); if nothing creates it, kustomize-controller fails"))
	}
	values := maps.Clone(b.opts.Vars)
	if values == nil {
		values = map[string]string{}
	}
	// A root of a file built alone: its parent Kustomization may supply
	// variables (by a patch adding substituteFrom, or substitute) that
	// routeguard does not see; they stand for the variables left without
	// a value, never strict-mode failures.
	if n.Parent == nil && b.entryApplied != nil {
		parent := &clusterSource{Kind: "ConfigMap", Key: nsName{ks.Namespace, parentVariables}, Why: whyBuiltAlone}
		optional = append(optional, parent)
		field.EnsureMap(body, "spec", "postBuild")
		pbBody := field.Map(body, "spec", "postBuild")
		refs, _ := pbBody["substituteFrom"].([]any)
		pbBody["substituteFrom"] = append(refs, map[string]any{"kind": "ConfigMap", "name": parentVariables, "optional": true})
	}
	if len(unread) == 0 && len(optional) > 0 && slices.ContainsFunc(variablesWithoutDefault(set), func(v string) bool { return !defined[v] && values[v] == "" }) {
		unread = optional
	}
	if len(unread) > 0 {
		for _, v := range variablesWithoutDefault(set) {
			if !defined[v] && values[v] == "" {
				values[v] = Placeholder(v)
				unread[0].Placeholders = append(unread[0].Placeholders, v)
			}
		}
		fill(src, unread, values)
	}
	opts := substitute.Options{Strict: b.opts.Strict != StrictOff, Origin: n.describe()}
	var unset []string
	for tries := 0; ; tries++ {
		out, err := substitute.Apply(ctx, set, body, src, opts)
		if err == nil {
			n.clusterSources = append(n.clusterSources, unread...)
			if len(unset) > 0 {
				n.notices = append(n.notices, b.lenientNotice(n, set, unset, defined, values))
			}
			return out, nil
		}
		var se *substitute.Error
		v := ""
		if errors.As(err, &se) {
			v = se.Variable()
		}
		// A variable the scan did not see (in a key, or built by an
		// expression): placeholder it too when only the cluster can set it.
		if len(unread) == 0 && v != "" && !defined[v] && values[v] == "" {
			unread = optional
		}
		// No ConfigMap or Secret can hold ${1}: Flux refuses such a key
		// for every object, so a placeholder would move the error.
		if len(unread) == 0 || !validVarName.MatchString(v) || defined[v] || values[v] != "" || tries > 100 {
			// The Flux the tree installs is older than 2.9: it substitutes
			// an empty string (as --strict=false does), and says so.
			if v != "" && b.lenient() {
				opts.Strict = false
				unset = append(unset, v)
				continue
			}
			return nil, b.substitutionError(err)
		}
		values[v] = Placeholder(v)
		unread[0].Placeholders = append(unread[0].Placeholders, v)
		fill(src, unread, values)
	}
}

// fill gives every unreadable source the values.
func fill(src *substitute.Sources, unread []*clusterSource, values map[string]string) {
	for _, u := range unread {
		nn := substitute.NamespacedName{Namespace: u.Key.ns, Name: u.Key.name}
		if u.Kind == "ConfigMap" {
			src.ConfigMaps[nn] = maps.Clone(values)
			continue
		}
		data := make(map[string][]byte, len(values))
		for k, v := range values {
			data[k] = []byte(v)
		}
		src.Secrets[nn] = data
	}
}

// varRef matches ${name...} not escaped as $${...}; group 2 is what
// follows the name inside the braces.
// validVarName is what fluxcd/pkg/kustomize accepts as a variable name.
var validVarName = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

var varRef = regexp.MustCompile(`(^|[^$])\$\{([_a-zA-Z][_a-zA-Z0-9]*)([^}]*)\}`)

// variablesWithoutDefault lists, sorted, the variables the objects use at
// least once without a default (${x}, ${x^^}; not ${x:=d}, ${x:-d},
// ${x=d}), skipping objects that opt out of substitution.
func variablesWithoutDefault(set *manifest.Set) []string {
	seen := map[string]bool{}
	var walk func(v any)
	scan := func(s string) {
		if !strings.Contains(s, "${") {
			return
		}
		for _, m := range varRef.FindAllStringSubmatch(s, -1) {
			rest := m[3]
			if strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, ":-") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "-") {
				continue
			}
			seen[m[2]] = true
		}
	}
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			scan(x)
		case map[string]any:
			for k, val := range x {
				scan(k)
				walk(val)
			}
		case []any:
			for _, val := range x {
				walk(val)
			}
		}
	}
	for _, o := range set.Objects() {
		if o.Labels()[substituteMarker] == "disabled" || o.Annotations()[substituteMarker] == "disabled" {
			continue
		}
		walk(o.Body)
	}
	return slices.Sorted(maps.Keys(seen))
}

const substituteMarker = KustomizeGroup + "/substitute"

// variableLine finds the line of a strict-mode error's variable in the
// object's file, from the object's first line on (0 when not found).
func variableLine(root string, e *substitute.Error) int {
	src := e.Object.Source
	p := filepath.FromSlash(src.File)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	data, err := readRegular(p, src.File, manifest.DefaultMaxFileBytes)
	if err != nil {
		return 0
	}
	return substitute.VariableLine(data, src.Line, e.Variable())
}
