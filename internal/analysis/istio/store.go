package istio

import (
	"errors"
	"fmt"

	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/schema/collection"
)

// store is the config store Istio's analysis context reads: a plain index
// filled once and then only read. Istio's own in-memory store maintains
// event-driven collections (krt) on every Create, which costs more than the
// analysis on large sets, and the analysis never needs events.
type store struct {
	schemas collection.Schemas
	kinds   map[config.GroupVersionKind]*kindConfigs
}

type kindConfigs struct {
	list  []config.Config // in insertion order (the rendered order)
	index map[[2]string]int
}

var _ model.ConfigStore = (*store)(nil)

var errReadOnly = errors.New("the analysis store is read-only")

func newStore(schemas collection.Schemas) *store {
	s := &store{schemas: schemas, kinds: map[config.GroupVersionKind]*kindConfigs{}}
	for _, sc := range schemas.All() {
		s.kinds[sc.GroupVersionKind()] = &kindConfigs{index: map[[2]string]int{}}
	}
	return s
}

func (s *store) Schemas() collection.Schemas { return s.schemas }

func (s *store) Get(typ config.GroupVersionKind, name, namespace string) *config.Config {
	k := s.kinds[typ]
	if k == nil {
		return nil
	}
	i, ok := k.index[[2]string{namespace, name}]
	if !ok {
		return nil
	}
	return &k.list[i]
}

func (s *store) List(typ config.GroupVersionKind, namespace string) []config.Config {
	k := s.kinds[typ]
	if k == nil {
		return nil
	}
	if namespace == "" {
		return k.list
	}
	var out []config.Config
	for _, c := range k.list {
		if c.Namespace == namespace {
			out = append(out, c)
		}
	}
	return out
}

// Create adds cfg; a second object of the same kind, namespace and name is
// an error (the manifest model reports duplicates to the user).
func (s *store) Create(cfg config.Config) (string, error) {
	k := s.kinds[cfg.GroupVersionKind]
	if k == nil {
		return "", fmt.Errorf("unknown kind %v", cfg.GroupVersionKind)
	}
	key := [2]string{cfg.Namespace, cfg.Name}
	if _, ok := k.index[key]; ok {
		return "", fmt.Errorf("%s %s/%s already exists", cfg.GroupVersionKind.Kind, cfg.Namespace, cfg.Name)
	}
	k.index[key] = len(k.list)
	k.list = append(k.list, cfg)
	return "", nil
}

func (s *store) Update(config.Config) (string, error)       { return "", errReadOnly }
func (s *store) UpdateStatus(config.Config) (string, error) { return "", errReadOnly }
func (s *store) Delete(config.GroupVersionKind, string, string, *string) error {
	return errReadOnly
}
