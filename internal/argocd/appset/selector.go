package appset

import (
	"encoding/json"
	"fmt"
	"slices"
)

// selector is a Kubernetes label selector without the restrictions on
// label values (Argo CD's copy of LabelSelectorAsSelector), matched
// against cluster labels or flattened parameters.
type selector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []requirement     `json:"matchExpressions,omitempty"`
}

type requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

func parseSelector(raw any) (*selector, error) {
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var s selector
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	for _, r := range s.MatchExpressions {
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				return nil, fmt.Errorf("%q: for 'in', 'notin' operators, values set can't be empty", r.Key)
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) != 0 {
				return nil, fmt.Errorf("%q: values set must be empty for exists and does not exist", r.Key)
			}
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", r.Operator)
		}
	}
	return &s, nil
}

func (s *selector) empty() bool { return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 }

func (s *selector) matches(labels map[string]string) bool {
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		got, ok := labels[r.Key]
		switch r.Operator {
		case "In":
			if !ok || !slices.Contains(r.Values, got) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(r.Values, got) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		}
	}
	return true
}
