package config

// Transforms configures traffic transforms (the Flux / post-rendering issue
// owns this file: extend the fields, keep the YAML strict).
type Transforms struct {
	// Weights sets route weights, e.g. {"reviews": {"blue": 90, "green": 10}}.
	Weights map[string]map[string]int `yaml:"weights,omitempty"`
	// SyncWaves adds Argo CD sync-wave annotations where none is set.
	SyncWaves bool `yaml:"syncWaves,omitempty"`
}

func (t *Transforms) validate() error { return nil }
