package flux

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// state is what the cluster holds after the nodes built so far were
// applied: every object (the first node to apply one owns it), and where
// Secrets come from that the repository does not hold in plain form.
type state struct {
	set   *manifest.Set
	owner map[manifest.Key]*Node
	// made: Secrets that controllers make in the cluster from objects the
	// tree applies (ExternalSecret, SealedSecret, OnePasswordItem), or that
	// kustomize-controller decrypts (SOPS): namespace/name -> the maker.
	made map[nsName]maker
}

type nsName struct{ ns, name string }

func (n nsName) String() string { return n.ns + "/" + n.name }

func newState() *state {
	return &state{set: manifest.NewSet(), owner: map[manifest.Key]*Node{}, made: map[nsName]maker{}}
}

// add records o as applied by n; it returns the node that applied it
// first when another one did.
func (s *state) add(n *Node, o *manifest.Object) *Node {
	k := o.Key()
	if prev, ok := s.owner[k]; ok {
		return prev
	}
	if err := s.set.Add(o); err != nil {
		return s.owner[k]
	}
	s.owner[k] = n
	s.noteMaker(n, o)
	return nil
}

// maker is what makes a Secret in the cluster, and the node applying it.
type maker struct {
	by   string
	node *Node
}

// noteMaker records the Secrets an object n applies makes in the cluster.
func (s *state) noteMaker(n *Node, o *manifest.Object) {
	names, by := secretsMade(o)
	for _, k := range names {
		s.made[k] = maker{by: by, node: n}
	}
}

// secretsMade lists the Secrets o makes in the cluster (namespace "*": any
// namespace) and what makes them.
func secretsMade(o *manifest.Object) ([]nsName, string) {
	ns := o.Namespace
	switch o.GroupKind() {
	case manifest.GroupKind{Group: "external-secrets.io", Kind: "ExternalSecret"}:
		name := field.String(o.Body, "spec", "target", "name")
		if name == "" {
			name = o.Name
		}
		return []nsName{{ns, name}}, "ExternalSecret " + o.Namespace + "/" + o.Name
	case manifest.GroupKind{Group: "external-secrets.io", Kind: "ClusterExternalSecret"}:
		// One ExternalSecret per selected namespace: taken as every
		// namespace listed, else any.
		name := field.String(o.Body, "spec", "externalSecretSpec", "target", "name")
		if name == "" {
			name = field.String(o.Body, "spec", "externalSecretName")
		}
		if name == "" {
			name = o.Name
		}
		nss := field.Strings(o.Body, "spec", "namespaces")
		if len(nss) == 0 {
			nss = []string{"*"}
		}
		var out []nsName
		for _, n := range nss {
			out = append(out, nsName{n, name})
		}
		return out, "ClusterExternalSecret " + o.Name
	case manifest.GroupKind{Group: "bitnami.com", Kind: "SealedSecret"}:
		name := field.String(o.Body, "spec", "template", "metadata", "name")
		if name == "" {
			name = o.Name
		}
		return []nsName{{ns, name}}, "SealedSecret " + o.Namespace + "/" + o.Name
	case manifest.GroupKind{Group: "onepassword.com", Kind: "OnePasswordItem"}:
		return []nsName{{ns, o.Name}}, "OnePasswordItem " + o.Namespace + "/" + o.Name
	case manifest.GroupKind{Kind: "Secret"}:
		if field.Has(o.Body, "sops") {
			return []nsName{{ns, o.Name}}, "SOPS (kustomize-controller decrypts it; routeguard cannot)"
		}
		if by := copiedInCluster(o); by != "" {
			return []nsName{{ns, o.Name}}, by
		}
	}
	return nil, ""
}

// madeIn says what among objs makes the Secret ns/name ("" when none).
func madeIn(objs []*manifest.Object, ns, name string) (string, bool) {
	for _, o := range objs {
		names, by := secretsMade(o)
		for _, k := range names {
			if k.name == name && (k.ns == ns || k.ns == "*") {
				return by, true
			}
		}
	}
	return "", false
}

// madeBy says what makes the Secret ns/name in the cluster ("" when
// nothing the tree applies does).
func (s *state) madeBy(ns, name string) (string, bool) {
	m, ok := s.maker(ns, name)
	return m.by, ok
}

// maker finds what makes the Secret ns/name, and the node applying it.
func (s *state) maker(ns, name string) (maker, bool) {
	if m, ok := s.made[nsName{ns, name}]; ok {
		return m, true
	}
	m, ok := s.made[nsName{"*", name}]
	return m, ok
}

// lookup finds a ConfigMap or Secret as the cluster would hold it in ns
// (an object that names no namespace is taken to be in ns).
func (s *state) lookup(kind, ns, name string) (*manifest.Object, bool) {
	if o, ok := s.set.Lookup("", kind, ns, name); ok {
		return o, true
	}
	return s.set.Lookup("", kind, "", name)
}

// source finds a Flux source object (or an ArtifactGenerator) in ns.
func (s *state) source(group, kind, ns, name string) (*manifest.Object, bool) {
	if o, ok := s.set.Lookup(group, kind, ns, name); ok {
		return o, true
	}
	return s.set.Lookup(group, kind, "", name)
}

// configMapData returns a ConfigMap's data (binaryData is not read).
func configMapData(o *manifest.Object) map[string]string {
	out := map[string]string{}
	for k, v := range field.Map(o.Body, "data") {
		out[k] = scalarString(v)
	}
	return out
}

// secretData returns what the API server would hand Flux for a Secret:
// data decoded from base64 with stringData merged over it. A value that is
// not valid base64 is an error naming the Secret and key, never the value.
func secretData(o *manifest.Object) (map[string][]byte, error) {
	data := map[string][]byte{}
	m := field.Map(o.Body, "data")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b, err := base64.StdEncoding.DecodeString(scalarString(m[k]))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: data.%s is not valid base64 (the value is not shown); use stringData for plain text", o.Source, o, k)
		}
		data[k] = b
	}
	for k, v := range field.Map(o.Body, "stringData") {
		data[k] = []byte(scalarString(v))
	}
	return data, nil
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
