package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Plugins configures out-of-process analyzer plugins (docs/plugins.md). It
// has two roles. The operator's plugin catalog (ParseCatalog; the file of
// --plugins or ROUTEGUARD_PLUGINS) says which binaries may run and pins
// them: dir, items with path and sha256, insecureSkipVerify, always. The
// repository's .routeguard.yaml only selects and configures among them:
// items with name, config, onError and timeout; onError, timeout, istio.
// A repository can never name a binary to run.
type Plugins struct {
	// Dir is a directory of plugin binaries, absolute or relative to the
	// catalog file. Its SHA256SUMS file (the output of `sha256sum *`) pins
	// each binary's checksum. Catalog only.
	Dir string `yaml:"dir,omitempty" scope:"catalog"`
	// Items declares plugins one by one. In the catalog, an item without
	// path names a plugin of Dir; in a repository, an item selects a
	// catalog plugin by name and gives it config, onError or timeout.
	Items []Plugin `yaml:"items,omitempty"`
	// OnError is what a failing plugin does to the run: fail (the
	// default: routeguard reports the other findings and exits 2) or warn
	// (routeguard prints the error and goes on).
	OnError string `yaml:"onError,omitempty"`
	// Timeout bounds each call to a plugin (start-up included), as a Go
	// duration ("20s"); default 30s.
	Timeout string `yaml:"timeout,omitempty"`
	// InsecureSkipVerify runs plugins whose checksum is not pinned.
	// Catalog only.
	InsecureSkipVerify bool `yaml:"insecureSkipVerify,omitempty" scope:"catalog"`
	// Istio is auto (the default: run the routeguard-istio plugin when the
	// rendered objects include Istio kinds) or off.
	Istio string `yaml:"istio,omitempty"`
}

// Plugin is one declared analyzer plugin.
type Plugin struct {
	// Name identifies the plugin in findings and errors: lower-case
	// letters, digits and dashes.
	Name string `yaml:"name"`
	// Path is the plugin binary, absolute or relative to the catalog file;
	// without it, the plugin of this name in the section's dir. Catalog
	// only: a repository selects plugins, it never installs them.
	Path string `yaml:"path,omitempty" scope:"catalog"`
	// SHA256 is the binary's checksum (`sha256sum PATH`), checked before
	// it runs. Catalog only.
	SHA256 string `yaml:"sha256,omitempty" scope:"catalog"`
	// Config is handed to the plugin as it is.
	Config map[string]any `yaml:"config,omitempty"`
	// OnError overrides the section's onError for this plugin.
	OnError string `yaml:"onError,omitempty"`
	// Timeout overrides the section's timeout for this plugin.
	Timeout string `yaml:"timeout,omitempty"`
	// Always runs the plugin for every app, selected or not (the
	// operator's policy). Catalog only.
	Always bool `yaml:"always,omitempty" scope:"catalog"`
}

// catalogFile is the shape of a plugin catalog file.
type catalogFile struct {
	Plugins *Plugins `yaml:"plugins"`
}

// ParseCatalog decodes the operator's plugin catalog: a YAML file whose
// plugins key has the shape of .routeguard.yaml's, with paths (absolute or
// relative to the file) and checksums.
func ParseCatalog(file string, data []byte) (*Plugins, error) {
	var doc catalogFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, placeError(file, err)
	}
	if doc.Plugins == nil {
		return nil, fmt.Errorf("%s: no plugins key; a plugin catalog holds plugins: {dir, items: [{name, path, sha256}]}", file)
	}
	if err := doc.Plugins.validate(true); err != nil {
		return nil, fmt.Errorf("%s: plugins: %w", file, err)
	}
	return doc.Plugins, nil
}

// DefaultPluginTimeout bounds a plugin call when no timeout is configured.
const DefaultPluginTimeout = 30 * time.Second

var (
	pluginNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	sha256RE     = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// TimeoutOf returns the call timeout of item (or of the section when item
// is nil). The values were validated on load.
func (p *Plugins) TimeoutOf(item *Plugin) time.Duration {
	for _, s := range []string{itemField(item, func(i *Plugin) string { return i.Timeout }), p.Timeout} {
		if d, err := time.ParseDuration(s); err == nil && s != "" {
			return d
		}
	}
	return DefaultPluginTimeout
}

// FailsOnError reports whether a failure of item fails the run.
func (p *Plugins) FailsOnError(item *Plugin) bool {
	if v := itemField(item, func(i *Plugin) string { return i.OnError }); v != "" {
		return v == "fail"
	}
	return p.OnError != "warn"
}

func itemField(item *Plugin, get func(*Plugin) string) string {
	if item == nil {
		return ""
	}
	return get(item)
}

// validate checks the section as a catalog (the operator's) or as a
// repository's selection.
func (p *Plugins) validate(catalog bool) error {
	if !catalog {
		if err := p.refuseOperatorKeys(); err != nil {
			return err
		}
	}
	if err := checkOnError(p.OnError); err != nil {
		return err
	}
	if err := checkTimeout(p.Timeout); err != nil {
		return err
	}
	switch p.Istio {
	case "", "auto", "off":
	default:
		return fmt.Errorf("istio must be auto or off, got %q", p.Istio)
	}
	seen := map[string]bool{}
	for i, it := range p.Items {
		if !pluginNameRE.MatchString(it.Name) {
			return fmt.Errorf("items entry %d: name %q must be lower-case letters, digits and dashes", i+1, it.Name)
		}
		if seen[it.Name] {
			return fmt.Errorf("items entry %d: plugin %q is declared twice", i+1, it.Name)
		}
		seen[it.Name] = true
		if !catalog {
			if err := checkOnError(it.OnError); err != nil {
				return fmt.Errorf("plugin %s: %w", it.Name, err)
			}
			if err := checkTimeout(it.Timeout); err != nil {
				return fmt.Errorf("plugin %s: %w", it.Name, err)
			}
			continue
		}
		if it.Path == "" && p.Dir == "" {
			return fmt.Errorf("plugin %s: give a path (or a dir holding the plugin)", it.Name)
		}
		if it.Path == "" && it.SHA256 != "" {
			return fmt.Errorf("plugin %s: sha256 without path; a plugin of dir is pinned in dir's SHA256SUMS", it.Name)
		}
		if it.Path != "" && it.SHA256 == "" && !p.InsecureSkipVerify {
			return fmt.Errorf("plugin %s: sha256 is required (run `sha256sum %s`), or set plugins.insecureSkipVerify: true", it.Name, it.Path)
		}
		if it.SHA256 != "" && !sha256RE.MatchString(it.SHA256) {
			return fmt.Errorf("plugin %s: sha256 must be 64 lower-case hex digits, got %q", it.Name, it.SHA256)
		}
		if err := checkOnError(it.OnError); err != nil {
			return fmt.Errorf("plugin %s: %w", it.Name, err)
		}
		if err := checkTimeout(it.Timeout); err != nil {
			return fmt.Errorf("plugin %s: %w", it.Name, err)
		}
	}
	return nil
}

// refuseOperatorKeys explains why a repository cannot pin or point at
// binaries: the pin would sit in the same repository (and pull request) as
// the binary, so it would protect nothing.
func (p *Plugins) refuseOperatorKeys() error {
	const why = "plugin binaries and their checksums come from the operator's plugin catalog (--plugins or ROUTEGUARD_PLUGINS), " +
		"never from the repository: a pin in the same pull request as the binary protects nothing; see docs/plugins.md"
	switch {
	case p.Dir != "":
		return fmt.Errorf("dir is not allowed here: %s", why)
	case p.InsecureSkipVerify:
		return fmt.Errorf("insecureSkipVerify is not allowed here: %s", why)
	}
	for _, it := range p.Items {
		switch {
		case it.Path != "":
			return fmt.Errorf("plugin %s: path is not allowed here: %s", it.Name, why)
		case it.SHA256 != "":
			return fmt.Errorf("plugin %s: sha256 is not allowed here: %s", it.Name, why)
		case it.Always:
			return fmt.Errorf("plugin %s: always is for the operator's catalog; selecting the plugin here runs it", it.Name)
		}
	}
	return nil
}

func checkOnError(v string) error {
	switch v {
	case "", "fail", "warn":
		return nil
	}
	return fmt.Errorf("onError must be fail or warn, got %q", v)
}

func checkTimeout(v string) error {
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("timeout must be a positive duration like 20s, got %q", v)
	}
	return nil
}
