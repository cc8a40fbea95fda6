package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"
)

// CRD is a parsed CustomResourceDefinition. Its versions are compiled on
// first use (structural schema, OpenAPI validator, CEL programs) and kept,
// so every object of a version reuses them. A CRD is safe for concurrent use.
type CRD struct {
	Group    string
	Kind     string
	Plural   string
	Scope    string // Namespaced or Cluster
	Versions []Version
	Origin   string // where it came from, for messages: "bundled Gateway API v1.6.3 (standard channel)", a file

	// v1 returns the CRD as decoded; each version is converted when it is
	// compiled. A bundled CRD is decoded on the first compilation: a run
	// whose results all come from the cache needs only its versions and
	// digest.
	v1       func() (*apiextensionsv1.CustomResourceDefinition, error)
	compiled map[string]*compiledOnce
	digest   func() string
}

// Digest is the SHA-256 (hex) of the CRD as decoded: what its objects'
// validation depends on, for keys of cached results.
func (c *CRD) Digest() string { return c.digest() }

// Version is one version of a CRD, as its spec declares it.
type Version struct {
	Name               string
	Served             bool
	Storage            bool
	Deprecated         bool
	DeprecationWarning string
}

type compiledOnce struct {
	once sync.Once
	done atomic.Bool // once has run
	v    *compiled
	err  error
}

// compiled is what the API server builds per CRD version when it starts
// serving it (apiextensions-apiserver customresource_handler.go,
// getOrCreateServingInfoFor).
type compiled struct {
	structural       *structuralschema.Structural
	schemaValidator  apiservervalidation.SchemaCreateValidator
	rules            *celCompiler // nil: no x-kubernetes-validations
	preserveUnknown  bool         // spec.preserveUnknownFields
	statusSubresouce bool         // status is dropped on create
	// elide: skip the API server's walks that cannot change this object
	// (embedded.go); false (build's plain mode) runs every one.
	elide bool
	// embedded: a node of the schema is x-kubernetes-embedded-resource.
	embedded bool
	// defaulting and listTypes: the parts of structural the defaulting
	// and list-type walks act on (walkschema.go; nil: nothing to do);
	// used when elide is set.
	defaulting, listTypes *structuralschema.Structural
}

// ParseCRD parses a CustomResourceDefinition body (apiextensions.k8s.io/v1)
// with the API server's types, defaults and conversion. origin names where
// it came from in messages.
func ParseCRD(body map[string]any, origin string) (*CRD, error) {
	if av, _ := body["apiVersion"].(string); av != "apiextensions.k8s.io/v1" {
		return nil, fmt.Errorf("%s: CustomResourceDefinition of apiVersion %q; Kubernetes serves only apiextensions.k8s.io/v1 since 1.22", origin, av)
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(body, &v1); err != nil {
		return nil, fmt.Errorf("%s: CustomResourceDefinition does not decode: %w", origin, err)
	}
	return parsedCRD(&v1, origin)
}

// parseCRDJSON is ParseCRD of a CRD in JSON (the bundled ones), decoded
// as the API server decodes JSON.
func parseCRDJSON(data []byte, origin string) (*CRD, error) {
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &v1); err != nil {
		return nil, fmt.Errorf("%s: CustomResourceDefinition does not decode: %w", origin, err)
	}
	if v1.APIVersion != "apiextensions.k8s.io/v1" {
		return nil, fmt.Errorf("%s: CustomResourceDefinition of apiVersion %q; Kubernetes serves only apiextensions.k8s.io/v1 since 1.22", origin, v1.APIVersion)
	}
	return parsedCRD(&v1, origin)
}

// bundledCRDJSON is parseCRDJSON for a bundled CRD: only its names, scope
// and versions are decoded now (what finding its objects' CRD and their
// cached results needs), the rest on the first compilation. Its digest is
// that of data, which the build fixes. A CRD whose head does not decode
// is parsed whole, for parseCRDJSON's error.
func bundledCRDJSON(data []byte, origin string) (*CRD, error) {
	var h struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Group string `json:"group"`
			Names struct {
				Kind   string `json:"kind"`
				Plural string `json:"plural"`
			} `json:"names"`
			Scope    string `json:"scope"`
			Versions []struct {
				Name               string  `json:"name"`
				Served             bool    `json:"served"`
				Storage            bool    `json:"storage"`
				Deprecated         bool    `json:"deprecated"`
				DeprecationWarning *string `json:"deprecationWarning"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &h); err != nil || h.APIVersion != "apiextensions.k8s.io/v1" || h.Spec.Group == "" || h.Spec.Names.Kind == "" {
		return parseCRDJSON(data, origin)
	}
	c := &CRD{Group: h.Spec.Group, Kind: h.Spec.Names.Kind, Plural: h.Spec.Names.Plural,
		Scope: h.Spec.Scope, Origin: origin, compiled: map[string]*compiledOnce{}}
	for _, v := range h.Spec.Versions {
		ver := Version{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated}
		if v.DeprecationWarning != nil {
			ver.DeprecationWarning = *v.DeprecationWarning
		}
		c.Versions = append(c.Versions, ver)
		c.compiled[v.Name] = &compiledOnce{}
	}
	sum := sha256.Sum256(append([]byte("bundled CRD JSON\x00"), data...))
	digest := hex.EncodeToString(sum[:])
	c.digest = func() string { return digest }
	c.v1 = sync.OnceValues(func() (*apiextensionsv1.CustomResourceDefinition, error) {
		whole, err := parseCRDJSON(data, origin)
		if err != nil {
			return nil, err
		}
		return whole.v1()
	})
	return c, nil
}

func parsedCRD(v1 *apiextensionsv1.CustomResourceDefinition, origin string) (*CRD, error) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	c := &CRD{Group: v1.Spec.Group, Kind: v1.Spec.Names.Kind, Plural: v1.Spec.Names.Plural,
		Scope: string(v1.Spec.Scope), Origin: origin, compiled: map[string]*compiledOnce{}}
	if c.Group == "" || c.Kind == "" {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %s names no group or kind", origin, v1.Name)
	}
	c.v1 = func() (*apiextensionsv1.CustomResourceDefinition, error) { return v1, nil }
	c.digest = sync.OnceValue(func() string {
		// Encoding a decoded CRD cannot fail; the origin is part of the
		// digest should it ever (no two CRDs then share it).
		data, err := json.Marshal(v1)
		if err != nil {
			data = []byte("unencodable CRD of " + origin)
		}
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	})
	for _, v := range v1.Spec.Versions {
		ver := Version{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated}
		if v.DeprecationWarning != nil {
			ver.DeprecationWarning = *v.DeprecationWarning
		}
		c.Versions = append(c.Versions, ver)
		c.compiled[v.Name] = &compiledOnce{}
	}
	return c, nil
}

// Version returns the named version.
func (c *CRD) Version(name string) (Version, bool) {
	for _, v := range c.Versions {
		if v.Name == name {
			return v, true
		}
	}
	return Version{}, false
}

// ServedVersions returns the names of the served versions, sorted.
func (c *CRD) ServedVersions() []string {
	var out []string
	for _, v := range c.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	sort.Strings(out)
	return out
}

// NamespaceScoped reports whether objects of the CRD live in namespaces.
func (c *CRD) NamespaceScoped() bool { return c.Scope != string(apiextensionsv1.ClusterScoped) }

// Compile builds what validating objects of version needs (structural
// schema, OpenAPI validator, CEL programs), once; ValidateCustomResource
// does it on first use. Of the CEL rules it compiles those that bodies,
// the objects about to be validated, can reach (ruletree.go); an object
// that reaches further has more compiled when it is validated. An error
// means the version cannot be validated.
func (c *CRD) Compile(version string, bodies ...map[string]any) error {
	cv, err := c.compile(version)
	if err != nil || cv.rules == nil || len(bodies) == 0 {
		return err
	}
	need := newRuleSet(cv.rules.nodes)
	for _, b := range bodies {
		cv.rules.tree.reachBeforeDefaults(b, need)
	}
	cv.rules.rulesFor(need)
	return nil
}

// Compiled reports whether version has been compiled (by Compile or a
// validation): what a run whose results all come from a cache skips.
func (c *CRD) Compiled(version string) bool {
	o, ok := c.compiled[version]
	return ok && o.done.Load()
}

// compile returns the compiled version, building it once.
func (c *CRD) compile(version string) (*compiled, error) {
	o, ok := c.compiled[version]
	if !ok {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %s has no version %s", c.Origin, c.Plural+"."+c.Group, version)
	}
	o.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				o.v, o.err = nil, fmt.Errorf("%s: compiling CustomResourceDefinition %s version %s failed: %v", c.Origin, c.Plural+"."+c.Group, version, r)
			}
		}()
		defer o.done.Store(true)
		o.v, o.err = c.build(version, true)
	})
	return o.v, o.err
}

// internal converts the CRD, with version as its only version, to the
// internal version the API server works with. Converting one version
// instead of all: Istio's CRDs carry three versions of one large schema,
// which the conversion converts and compares with each other (to hoist a
// schema all versions share); that was half of loading a CRD.
func (c *CRD) internal(version string) (*apiextensions.CustomResourceDefinition, error) {
	v1, err := c.v1()
	if err != nil {
		return nil, err
	}
	one := *v1
	one.Spec.Versions = nil
	for _, v := range v1.Spec.Versions {
		if v.Name == version {
			one.Spec.Versions = append(one.Spec.Versions, v)
		}
	}
	var out apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&one, &out, nil); err != nil {
		return nil, fmt.Errorf("%s: converting CustomResourceDefinition %s: %w", c.Origin, v1.Name, err)
	}
	return &out, nil
}

// build compiles version. cached keeps what validating an object would
// build again for the next: the CEL rules' schema adaptor (celschema.go)
// and the OpenAPI validators of fields and items (openapicache.go); false
// validates exactly as upstream ships it.
func (c *CRD) build(version string, cached bool) (*compiled, error) {
	name := c.Plural + "." + c.Group
	crd, err := c.internal(version)
	if err != nil {
		return nil, err
	}
	val, err := apiextensions.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Origin, err)
	}
	out := &compiled{preserveUnknown: crd.Spec.PreserveUnknownFields != nil && *crd.Spec.PreserveUnknownFields}
	var props *apiextensions.JSONSchemaProps
	if val != nil {
		props = val.OpenAPIV3Schema
	}
	if props != nil {
		s, err := structuralschema.NewStructural(props)
		if err != nil && !out.preserveUnknown {
			return nil, fmt.Errorf("%s: CustomResourceDefinition %s version %s: the schema is not structural: %w", c.Origin, name, version, err)
		}
		if s != nil && !out.preserveUnknown {
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, fmt.Errorf("%s: CustomResourceDefinition %s version %s: pruning defaults: %w", c.Origin, name, version, err)
			}
		}
		out.structural = s
	}
	sv, openapi, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %s version %s: %w", c.Origin, name, version, err)
	}
	out.schemaValidator = sv
	if cached {
		out.schemaValidator = newCachedOpenAPI(openapi)
	}
	if out.structural != nil {
		if tree, n := newRuleTree(out.structural); tree != nil {
			out.rules = &celCompiler{tree: tree, nodes: n, schema: out.structural, cached: cached}
			if !cached {
				// Exactly as apiextensions ships it: every rule, compiled now.
				out.rules.latest.Store(out.rules.compile(out.rules.all()))
			}
		}
	}
	sub, err := apiextensions.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Origin, err)
	}
	out.statusSubresouce = sub != nil && sub.Status != nil
	out.elide, out.embedded = cached, hasEmbeddedResource(out.structural)
	out.defaulting, out.listTypes = defaultingSchema(out.structural), listTypeSchema(out.structural)
	return out, nil
}
