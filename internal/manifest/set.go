package manifest

import (
	"fmt"
	"slices"
)

// DuplicateError reports two objects with the same group, kind, namespace and
// name: one would silently overwrite the other when applied.
type DuplicateError struct {
	Key           Key
	First, Second Source
	// Object is the second object (the one Add refused).
	Object *Object
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s: duplicate object %s, first defined at %s; rename or remove one of them",
		e.Second, e.Key, e.First)
}

// Set is an ordered collection of objects indexed by identity and kind.
// Insertion order is preserved (it is the order the reconciler receives).
type Set struct {
	objects []*Object
	byKey   map[Key]*Object
	byGK    map[GroupKind][]*Object
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{byKey: map[Key]*Object{}, byGK: map[GroupKind][]*Object{}}
}

// Add inserts o; an object with the same key is a *DuplicateError.
// Objects named only by generateName are never duplicates.
func (s *Set) Add(o *Object) error {
	k := o.Key()
	if !generated(o) {
		if prev, ok := s.byKey[k]; ok {
			return &DuplicateError{Key: k, First: prev.Source, Second: o.Source, Object: o}
		}
		s.byKey[k] = o
	}
	s.objects = append(s.objects, o)
	gk := o.GroupKind()
	s.byGK[gk] = append(s.byGK[gk], o)
	return nil
}

// AddLastWins inserts o like Add, except that an object with the same key
// is replaced by o (which takes the last position), as Argo CD does with an
// object its source renders twice (RepeatedResourceWarning). It returns
// the duplicate it resolved, or nil.
func (s *Set) AddLastWins(o *Object) *DuplicateError {
	err := s.Add(o)
	if err == nil {
		return nil
	}
	dup := err.(*DuplicateError)
	prev := s.byKey[dup.Key]
	s.objects = slices.DeleteFunc(s.objects, func(x *Object) bool { return x == prev })
	gk := prev.GroupKind()
	s.byGK[gk] = slices.DeleteFunc(s.byGK[gk], func(x *Object) bool { return x == prev })
	delete(s.byKey, dup.Key)
	if err := s.Add(o); err != nil {
		panic("manifest: AddLastWins: " + err.Error()) // the key was just removed
	}
	return dup
}

func generated(o *Object) bool {
	md, _ := o.Body["metadata"].(map[string]any)
	_, hasName := md["name"].(string)
	return !hasName
}

// AddAll inserts every object, stopping at the first duplicate.
func (s *Set) AddAll(objs []*Object) error {
	for _, o := range objs {
		if err := s.Add(o); err != nil {
			return err
		}
	}
	return nil
}

// Objects returns the objects in insertion order. The slice must not be modified.
func (s *Set) Objects() []*Object { return s.objects }

// Len returns the number of objects.
func (s *Set) Len() int { return len(s.objects) }

// Get returns the object with the given key.
func (s *Set) Get(k Key) (*Object, bool) {
	o, ok := s.byKey[k]
	return o, ok
}

// Lookup returns the object of the given group and kind in namespace ns named name.
func (s *Set) Lookup(group, kind, ns, name string) (*Object, bool) {
	return s.Get(Key{Group: group, Kind: kind, Namespace: ns, Name: name})
}

// ByKind returns the objects of a group and kind, any version, in insertion order.
func (s *Set) ByKind(group, kind string) []*Object { return s.byGK[GroupKind{group, kind}] }

// ByGVK returns the objects of exactly apiVersion and kind.
func (s *Set) ByGVK(apiVersion, kind string) []*Object {
	var out []*Object
	for _, o := range s.byGK[GroupKind{groupOf(apiVersion), kind}] {
		if o.APIVersion == apiVersion {
			out = append(out, o)
		}
	}
	return out
}

func groupOf(apiVersion string) string {
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}
