package appset

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"dario.cat/mergo"
)

var (
	errMoreThanTwo      = errors.New("found more than two generators, Matrix support only two")
	errLessThanTwo      = errors.New("found less than two generators, Matrix support only two")
	errMoreThanOneInner = errors.New("found more than one generator in matrix.Generators")
	errMergeLessThanTwo = errors.New("found less than two generators, Merge requires two or more")
	errNoMergeKeys      = errors.New("no merge keys were specified, Merge requires at least one")
	errNonUnique        = errors.New("the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique")
)

func children(body map[string]any) ([]map[string]any, error) {
	raw, _ := body["generators"].([]any)
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("child generator %d is not an object", i+1)
		}
		out[i] = m
	}
	return out, nil
}

// matrix is Argo CD's MatrixGenerator: the second child is interpolated
// with each parameter set of the first, and the sets are combined (Go
// templates: merged, the first child's values winning; flat parameters:
// combined, a key with two different values being an error).
func (x *expander) matrix(body map[string]any) ([]map[string]any, error) {
	gens, err := children(body)
	if err != nil {
		return nil, err
	}
	if len(gens) < 2 {
		return nil, errLessThanTwo
	}
	if len(gens) > 2 {
		return nil, errMoreThanTwo
	}
	res := []map[string]any{}
	g0, err := x.childParams(gens[0], nil)
	if err != nil {
		return nil, fmt.Errorf("error failed to get params for first generator in matrix generator: %w", err)
	}
	for _, a := range g0 {
		g1, err := x.childParams(gens[1], a)
		if err != nil {
			return nil, fmt.Errorf("failed to get params for second generator in the matrix generator: %w", err)
		}
		for _, b := range g1 {
			if x.spec.GoTemplate {
				tmp := map[string]any{}
				if err := mergo.Merge(&tmp, deepCopy(b), mergo.WithOverride); err != nil {
					return nil, err
				}
				if err := mergo.Merge(&tmp, deepCopy(a), mergo.WithOverride); err != nil {
					return nil, err
				}
				res = append(res, tmp)
				continue
			}
			val, err := combineStringMaps(a, b)
			if err != nil {
				return nil, fmt.Errorf("failed to combine string maps with merging params for the matrix generator: %w", err)
			}
			res = append(res, val)
		}
	}
	return res, nil
}

// childParams runs one child generator of a matrix or merge: exactly one
// generator kind, no template.
func (x *expander) childParams(g map[string]any, params map[string]any) ([]map[string]any, error) {
	t, err := x.transform(g, map[string]any{}, params)
	if err != nil {
		return nil, fmt.Errorf("child generator returned an error on parameter generation: %w", err)
	}
	if len(t) == 0 {
		return nil, errors.New("child generator generated no parameters")
	}
	if len(t) > 1 {
		return nil, errMoreThanOneInner
	}
	return t[0].params, nil
}

func combineStringMaps(a, b map[string]any) (map[string]any, error) {
	res := map[string]any{}
	for k, v := range a {
		res[k] = fmt.Sprintf("%v", v)
	}
	for k, v := range b {
		s := fmt.Sprintf("%v", v)
		if cur, ok := res[k]; ok && cur != s {
			return nil, fmt.Errorf("found duplicate key %s with different value, a: %s ,b: %s", k, cur, s)
		}
		res[k] = s
	}
	return res, nil
}

// merge is Argo CD's MergeGenerator: the first child's parameter sets,
// each overridden by the sets of later children with the same values of
// the merge keys. Argo CD returns them in map order; here they are sorted
// by their merge key values, for deterministic output.
func (x *expander) merge(body map[string]any) ([]map[string]any, error) {
	gens, err := children(body)
	if err != nil {
		return nil, err
	}
	if len(gens) < 2 {
		return nil, errMergeLessThanTwo
	}
	var keys []string
	if raw, ok := body["mergeKeys"].([]any); ok {
		for _, k := range raw {
			if s, ok := k.(string); ok {
				keys = append(keys, s)
			}
		}
	}
	var sets [][]map[string]any
	for i, g := range gens {
		ps, err := x.childParams(g, map[string]any{})
		if err != nil {
			return nil, fmt.Errorf("error getting params from generator %d of %d: %w", i+1, len(gens), err)
		}
		sets = append(sets, ps)
	}
	base, err := byMergeKey(keys, sets[0])
	if err != nil {
		return nil, fmt.Errorf("error getting param sets by merge key: %w", err)
	}
	for _, ps := range sets[1:] {
		over, err := byMergeKey(keys, ps)
		if err != nil {
			return nil, fmt.Errorf("error getting param sets by merge key: %w", err)
		}
		for k, b := range base {
			o, ok := over[k]
			if !ok {
				continue
			}
			if x.spec.GoTemplate {
				if err := mergo.Merge(&b, deepCopy(o), mergo.WithOverride); err != nil {
					return nil, fmt.Errorf("error merging base param set with override param set: %w", err)
				}
			} else {
				maps.Copy(b, o)
			}
			base[k] = b
		}
	}
	out := make([]map[string]any, 0, len(base))
	for _, k := range slices.Sorted(maps.Keys(base)) {
		out = append(out, base[k])
	}
	return out, nil
}

func byMergeKey(keys []string, sets []map[string]any) (map[string]map[string]any, error) {
	if len(keys) < 1 {
		return nil, errNoMergeKeys
	}
	dedup := map[string]bool{}
	for _, k := range keys {
		dedup[k] = false
	}
	out := make(map[string]map[string]any, len(sets))
	for _, ps := range sets {
		key := map[string]any{}
		for k := range dedup {
			key[k] = ps[k]
		}
		data, err := json.Marshal(key)
		if err != nil {
			return nil, fmt.Errorf("error marshalling param set key json: %w", err)
		}
		if _, dup := out[string(data)]; dup {
			return nil, fmt.Errorf("%w. Duplicate key was %s", errNonUnique, data)
		}
		out[string(data)] = deepCopy(ps).(map[string]any)
	}
	return out, nil
}
