package istio

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/collection"
	sresource "istio.io/istio/pkg/config/schema/resource"

	"github.com/routeguard/routeguard/internal/analysis/internal/tlsdata"
	"github.com/routeguard/routeguard/internal/manifest"
)

// converter turns manifest objects into the config.Config values Istio's
// stores hold, without re-encoding them as YAML (the file source's path).
type converter struct {
	byGVK map[config.GroupVersionKind]sresource.Schema // every version alias of every schema
}

func newConverter(schemas collection.Schemas) *converter {
	c := &converter{byGVK: map[config.GroupVersionKind]sresource.Schema{}}
	for _, s := range schemas.All() {
		for _, g := range s.GroupVersionAliasKinds() {
			c.byGVK[g] = s
		}
	}
	return c
}

// schemaFor returns the Istio schema for an apiVersion and kind, accepting
// the version aliases Istio accepts (v1alpha3, v1beta1, v1 for networking).
func (c *converter) schemaFor(apiVersion, kind string) (sresource.Schema, bool) {
	group, version := "", apiVersion
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
	}
	s, ok := c.byGVK[config.GroupVersionKind{Group: group, Version: version, Kind: kind}]
	return s, ok
}

// toConfig converts body (a whole object) into a config.Config of schema s
// in namespace ns. A body whose spec does not decode as the schema's type is
// an error naming the field path the converter complained about.
func toConfig(s sresource.Schema, body map[string]any, name, ns string) (cfg *config.Config, err error) {
	defer func() {
		// The unstructured converter panics on a few shapes of bad input;
		// turn that into an error about this object.
		if r := recover(); r != nil {
			cfg, err = nil, fmt.Errorf("cannot decode as %s: %v", s.Kind(), r)
		}
	}()
	spec, err := s.NewInstance()
	if err != nil {
		return nil, fmt.Errorf("no Go type for %s: %w", s.Kind(), err)
	}
	from := body
	if sp, ok := body["spec"]; ok {
		m, ok := sp.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spec is %s, not an object", describe(sp))
		}
		from = m
	}
	if err := decodeSpec(from, spec); err != nil {
		return nil, fmt.Errorf("spec does not decode as %s: %w", s.Kind(), err)
	}
	md, _ := body["metadata"].(map[string]any)
	if s.IsClusterScoped() {
		ns = ""
	}
	cfg = &config.Config{
		Meta: config.Meta{
			GroupVersionKind: s.GroupVersionKind(),
			Name:             name,
			Namespace:        ns,
			Labels:           stringMap(md["labels"]),
			Annotations:      stringMap(md["annotations"]),
		},
		Spec: spec,
	}
	if st, ok := body["status"].(map[string]any); ok {
		if status, err := s.Status(); err == nil && status != nil {
			if err := kruntime.DefaultUnstructuredConverter.FromUnstructured(st, status); err == nil {
				cfg.Status = status
			}
		}
	}
	return cfg, nil
}

// decodeSpec fills spec from an unstructured value. Istio's API types are
// protobuf messages: they are decoded with protojson (unknown fields
// ignored, as Istio's own decoder does), which is several times faster than
// the unstructured converter's path through their legacy UnmarshalJSON.
// Kubernetes types go through the unstructured converter, as in Istio.
func decodeSpec(from map[string]any, spec config.Spec) error {
	if pm, ok := spec.(proto.Message); ok {
		data, err := json.Marshal(from)
		if err != nil {
			return err
		}
		return protoDecoder.Unmarshal(data, pm)
	}
	return kruntime.DefaultUnstructuredConverter.FromUnstructured(from, spec)
}

var protoDecoder = protojson.UnmarshalOptions{DiscardUnknown: true}

// stringMap copies a map of strings out of a body value; non-string values
// are skipped (Kubernetes would reject them; other analyzers report that).
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		if s, ok := val.(string); ok {
			out[k] = s
		}
	}
	return out
}

func cloneStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	return maps.Clone(m)
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case int64, float64, int:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// objectNamespace returns o's namespace, defaulting to def.
func objectNamespace(o *manifest.Object, def string) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return def
}

// converted is one object made ready for Istio's store.
type converted struct {
	obj  *manifest.Object
	ns   string         // namespace, defaulted ("" for cluster-scoped kinds)
	skip bool           // in a namespace Istio ignores
	cfg  *config.Config // nil when Istio does not read the kind
	pod  *config.Config // the Pod a workload's template implies, if any
	err  error          // the object does not decode as its kind
	// opaque: a Secret whose data cannot be judged from Git (SOPS, Flux
	// variables, a reflector): Istio sees it without data.
	opaque bool
	// produces names the Secret a producer (cert-manager Certificate,
	// ExternalSecret, ...) creates in its namespace.
	produces string
}

func (c *converter) convert(o *manifest.Object, defNS string) converted {
	r := converted{obj: o, ns: objectNamespace(o, defNS)}
	s, known := c.schemaFor(o.APIVersion, o.Kind)
	if known && s.IsClusterScoped() {
		r.ns = ""
	}
	if ignoredNamespace(o, r.ns) {
		r.skip = true
		return r
	}
	r.produces, _ = tlsdata.ProducedSecret(o)
	if known {
		body := o.Body
		if o.Kind == "Secret" && o.Group() == "" && tlsdata.Opaque(o) {
			r.opaque = true
			body = map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": o.Body["metadata"]}
		}
		r.cfg, r.err = toConfig(s, body, o.Name, r.ns)
		if r.err != nil {
			return r
		}
	}
	// Workloads Istio does not read itself (StatefulSet, Job, ...) still
	// imply Pods.
	if pod, ok := podFromTemplate(o, r.ns); ok {
		r.pod = pod
	}
	return r
}
