package substitute

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Sources holds the ConfigMaps and Secrets that substituteFrom may name,
// keyed by namespace and name, as the API server would hold them (Secret
// data already decoded from base64, stringData merged in).
type Sources struct {
	ConfigMaps map[NamespacedName]map[string]string
	Secrets    map[NamespacedName]map[string][]byte
}

// NamespacedName identifies a ConfigMap or Secret.
type NamespacedName struct{ Namespace, Name string }

func (n NamespacedName) String() string { return n.Namespace + "/" + n.Name }

// Has reports whether Sources holds an object of kind ("ConfigMap" or
// "Secret") named n.
func (s *Sources) Has(kind string, n NamespacedName) bool {
	if s == nil {
		return false
	}
	switch kind {
	case "ConfigMap":
		_, ok := s.ConfigMaps[n]
		return ok
	case "Secret":
		_, ok := s.Secrets[n]
		return ok
	}
	return false
}

// sourcesClient answers the only calls Flux's LoadVariables makes (Get of a
// ConfigMap or a Secret) from Sources, with the API server's NotFound error
// for anything it does not hold, so Flux's own `optional` handling applies.
// Every other client method panics through the nil embedded interface; Flux
// does not call them on this path.
type sourcesClient struct {
	client.Client
	src *Sources
}

func (c sourcesClient) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	n := NamespacedName{Namespace: key.Namespace, Name: key.Name}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if c.src != nil {
			if data, ok := c.src.ConfigMaps[n]; ok {
				o.Name, o.Namespace = n.Name, n.Namespace
				o.Data = data
				return nil
			}
		}
		return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
	case *corev1.Secret:
		if c.src != nil {
			if data, ok := c.src.Secrets[n]; ok {
				o.Name, o.Namespace = n.Name, n.Namespace
				o.Data = data
				return nil
			}
		}
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	return fmt.Errorf("substitute: unexpected lookup of %T %s", obj, n)
}
