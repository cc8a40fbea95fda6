package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/capabilities"
	sjson "sigs.k8s.io/json"
)

// builtinKind is how kube-apiserver's registry handles creating one
// built-in kind: its strategy's PrepareForCreate (status reset, fields of
// disabled features dropped) and Validate, both calling k8s.io/kubernetes'
// own functions (see builtin_kinds.go).
type builtinKind struct {
	gvk        schema.GroupVersionKind // the served version it is registered for
	resource   string
	namespaced bool
	prepare    func(obj runtime.Object)
	validate   func(ctx context.Context, obj runtime.Object) field.ErrorList
	// declarative: the strategy opts in to declarative validation
	// (rest.DeclarativeValidation), with this configuration.
	declarative func() rest.DeclarativeValidationConfig
}

// noConfig is the declarative validation configuration of strategies that
// declare none.
func noConfig() rest.DeclarativeValidationConfig { return rest.DeclarativeValidationConfig{} }

// builtin is the lazily built scheme of the validated built-in kinds: their
// internal and external types, defaulting and conversion functions, and
// their declarative validation, as kube-apiserver installs them.
type builtin struct {
	scheme  *runtime.Scheme
	decoder runtime.Decoder // strict JSON, defaulting, conversion to internal
	kinds   map[schema.GroupVersionKind]builtinKind
}

var builtinOnce = sync.OnceValue(func() *builtin {
	// Pod validation asks the API server's capabilities whether privileged
	// containers are allowed; unset, they read as kube-apiserver's flag
	// default (--allow-privileged=false) and every privileged container
	// (CNI, CSI and storage DaemonSets) would be an error. kubeadm, k3s,
	// EKS, GKE and AKS all run with privileged allowed, and admission
	// (Pod Security) is the cluster's business, not the schema's.
	capabilities.Setup(true, 0)
	s := runtime.NewScheme()
	for _, install := range builtinInstallers {
		install(s)
	}
	apiextensionsinstall.Install(s)
	codecs := serializer.NewCodecFactory(s)
	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{Strict: true})
	b := &builtin{scheme: s, decoder: codecs.DecoderToVersion(strict, runtime.InternalGroupVersioner),
		kinds: map[schema.GroupVersionKind]builtinKind{}}
	for _, k := range append(builtinKinds(), crdKind) {
		b.kinds[k.gvk] = k
	}
	return b
})

// crdKind validates CustomResourceDefinitions with apiextensions-apiserver's
// registry strategy functions.
var crdKind = builtinKind{
	gvk: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, resource: "customresourcedefinitions",
	prepare: func(obj runtime.Object) {
		crd := obj.(*apiextensions.CustomResourceDefinition)
		crd.Status = apiextensions.CustomResourceDefinitionStatus{}
		crd.Generation = 1
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				break
			}
		}
	},
	validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
		return crdvalidation.ValidateCustomResourceDefinition(ctx, obj.(*apiextensions.CustomResourceDefinition))
	},
}

// BuiltinKinds returns the apiVersion/kind pairs ValidateBuiltin checks,
// sorted.
func BuiltinKinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range append(builtinKinds(), crdKind) {
		out = append(out, k.gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// IsBuiltinValidated reports whether ValidateBuiltin checks gvk.
func IsBuiltinValidated(gvk schema.GroupVersionKind) bool {
	return builtinValidated()[gvk]
}

// builtinValidated is the set of BuiltinKinds, built once: asked for every
// built-in object, building the kinds' list each time cost 2% of the
// analysis of 10,000 objects.
var builtinValidated = sync.OnceValue(func() map[schema.GroupVersionKind]bool {
	set := map[schema.GroupVersionKind]bool{}
	for _, gvk := range BuiltinKinds() {
		set[gvk] = true
	}
	return set
})

// ValidateBuiltin validates body, an object of a built-in kind IsBuiltinValidated
// accepts, as kube-apiserver does on create: strict decoding into the
// versioned type (unknown and duplicate fields, wrong types), defaulting,
// conversion to the internal type, the registry strategy's PrepareForCreate
// and Validate, the generic metadata validation, and the declarative
// validation that Kubernetes enforces for the kind. namespace is the
// namespace the object is created in when it names none.
func ValidateBuiltin(ctx context.Context, namespace string, body map[string]any) (*Result, error) {
	b := builtinOnce()
	apiVersion, _ := body["apiVersion"].(string)
	kind, _ := body["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	k, ok := b.kinds[gv.WithKind(kind)]
	if !ok {
		return nil, fmt.Errorf("%s %s is not a validated built-in kind", apiVersion, kind)
	}
	data, release, err := encodeJSON(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the object as JSON: %w", err)
	}
	res := &Result{}
	// The decoder copies what it keeps (encoding/json never aliases its
	// input), so the buffer goes back once decoded.
	obj, _, err := b.decoder.Decode(data, nil, nil)
	release()
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil {
			res.Violations = append(res.Violations, decodeViolation(err))
			return res, nil
		}
		for _, e := range strictErr.Errors() {
			res.Violations = append(res.Violations, strictViolation(e))
		}
	}
	accessor, ok := obj.(interface {
		GetNamespace() string
		SetNamespace(string)
		GetName() string
	})
	if !ok {
		return nil, fmt.Errorf("%s %s: decoded object has no metadata", apiVersion, kind)
	}
	if !k.namespaced {
		accessor.SetNamespace("")
	} else if accessor.GetNamespace() == "" {
		accessor.SetNamespace(namespace)
	}
	ctx = klog.NewContext(ctx, logr.Discard()) // declarative validation logs mismatches
	ctx = genericapirequest.WithNamespace(ctx, accessor.GetNamespace())
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create",
		APIPrefix: "apis", APIGroup: k.gvk.Group, APIVersion: k.gvk.Version, Resource: k.resource,
		Namespace: accessor.GetNamespace(), Name: accessor.GetName()})
	k.prepare(obj)
	var strategy rest.RESTCreateStrategy = strategyFor{k, b.scheme}
	if k.declarative != nil {
		strategy = declarativeStrategyFor{strategyFor{k, b.scheme}}
	}
	errs := rest.ValidateCreate(ctx, obj, strategy)
	res.Violations = append(res.Violations, fromFieldErrors(Builtin, errs)...)
	return res, nil
}

// strategyFor adapts a builtinKind to the registry's create strategy, so
// rest.ValidateCreate runs the kind's validation and the generic metadata
// validation in kube-apiserver's order (and, for the strategies that opt in,
// declarativeStrategyFor adds declarative validation).
type strategyFor struct {
	k      builtinKind
	scheme *runtime.Scheme
}

func (s strategyFor) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return s.k.validate(ctx, obj)
}
func (s strategyFor) NamespaceScoped() bool                                     { return s.k.namespaced }
func (s strategyFor) PrepareForCreate(context.Context, runtime.Object)          {}
func (s strategyFor) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (s strategyFor) Canonicalize(runtime.Object)                               {}
func (s strategyFor) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return s.scheme.ObjectKinds(obj)
}
func (s strategyFor) Recognizes(gvk schema.GroupVersionKind) bool { return s.scheme.Recognizes(gvk) }
func (s strategyFor) GenerateName(base string) string             { return base }

type declarativeStrategyFor struct{ strategyFor }

func (s declarativeStrategyFor) ValidateDeclaratively(ctx context.Context, obj, oldObj runtime.Object, errs field.ErrorList, op operation.Type, cfg rest.DeclarativeValidationConfig) field.ErrorList {
	return rest.ValidateDeclarativelyWithMigrationChecks(ctx, s.scheme, obj, oldObj, errs, op, cfg)
}
func (s declarativeStrategyFor) DeclarativeValidationConfig(context.Context, runtime.Object, runtime.Object) rest.DeclarativeValidationConfig {
	return s.k.declarative()
}

// strictViolation turns a strict decoding error (sigs.k8s.io/json's, as
// the API server's decoder returns them) into a violation.
func strictViolation(err error) Violation {
	msg := err.Error()
	var fe sjson.FieldError
	if errors.As(err, &fe) {
		if strings.Contains(msg, "unknown field") {
			return unknownField(fe.FieldPath())
		}
		return Violation{Class: Builtin, Field: fe.FieldPath(), Message: strings.TrimPrefix(msg, "json: ")}
	}
	return Violation{Class: Builtin, Message: msg}
}
