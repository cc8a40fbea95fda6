package config

// Plugins configures out-of-process analyzer plugins (the plugin SDK issue
// owns this file: extend the fields, keep the YAML strict).
type Plugins struct {
	// Dir is a directory of plugin binaries, relative to the repository root
	// or absolute (for the sidecar image).
	Dir string `yaml:"dir,omitempty"`
	// Items declares plugins one by one.
	Items []Plugin `yaml:"items,omitempty"`
}

// Plugin is one declared analyzer plugin.
type Plugin struct {
	Name   string         `yaml:"name"`
	Path   string         `yaml:"path"`
	SHA256 string         `yaml:"sha256,omitempty"`
	Config map[string]any `yaml:"config,omitempty"`
}

func (p *Plugins) validate() error { return nil }
