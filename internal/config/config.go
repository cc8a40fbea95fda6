package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/internal/analysis"
)

// FileNames are the names routeguard looks for, in order.
var FileNames = []string{".routeguard.yaml", ".routeguard.yml"}

// Config is the content of one .routeguard.yaml.
type Config struct {
	// File is where the config was read from ("" for defaults).
	File string `yaml:"-"`

	// FailOn is the severity at which routeguard fails: error, warning or
	// never (unset: the caller's default, error).
	FailOn analysis.FailOn `yaml:"failOn,omitempty"`
	// Severity overrides the default severity of finding codes.
	Severity map[string]analysis.Severity `yaml:"severity,omitempty"`
	// Suppress drops findings by code and object glob.
	Suppress []Suppression `yaml:"suppress,omitempty"`
	// ContextPaths are other apps of the repository whose objects resolve
	// references; they are rendered but never emitted.
	ContextPaths []ContextPath `yaml:"contextPaths,omitempty"`
	// ArgoCDClusterView makes `cmp generate` analyze its Application with
	// the other Applications of its destination cluster as context, as
	// `routeguard argocd analyze` finds and renders them (docs/argocd.md).
	ArgoCDClusterView *ArgoCDClusterView `yaml:"argocdClusterView,omitempty"`
	// Plugins selects and configures out-of-process analyzers among those
	// of the operator's catalog (see plugins.go).
	Plugins *Plugins `yaml:"plugins,omitempty"`
	// Transforms are traffic transforms applied after rendering (docs/flux.md).
	Transforms *Transforms `yaml:"transforms,omitempty"`
	// TransformsLine is the line of the transforms key (0: none), for
	// findings about them.
	TransformsLine int `yaml:"-"`
}

// keyLine is the line of a top-level key of the document doc, or 0.
func keyLine(doc *yaml.Node, key string) int {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return 0
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// ArgoCDClusterView says where the repository's Argo CD Applications are.
type ArgoCDClusterView struct {
	// Roots are app-of-apps root files or directories to scan, relative to
	// the repository root (`routeguard argocd analyze ROOTS...`).
	Roots []string `yaml:"roots"`
	// RepoURLs are the repoURLs that mean this repository (default: the
	// one whose paths exist here most often).
	RepoURLs []string `yaml:"repoURLs,omitempty"`
}

// Suppression drops findings whose code and object ("Kind ns/name") match
// the globs.
type Suppression struct {
	// Code is the finding code, or a glob of codes ("RG1*").
	Code string `yaml:"code"`
	// Object is a glob of "Kind namespace/name" ("Secret shop-*/*"); empty
	// matches every object.
	Object string `yaml:"object,omitempty"`
	// Reason says why the findings are dropped, for the next reader.
	Reason string `yaml:"reason,omitempty"`
}

// ContextPath is another app of the repository, rendered only to resolve
// references. In YAML it is either a path string or a mapping with the
// render options that app needs (Helm namespace, release, values files).
type ContextPath struct {
	// Path is the app's path from the repository root.
	Path string `yaml:"path"`
	// Namespace is the Helm release namespace to render the app with.
	Namespace string `yaml:"namespace,omitempty"`
	// Release is the Helm release name to render the app with.
	Release string `yaml:"release,omitempty"`
	// Values are Helm values files, relative to the chart.
	Values []string `yaml:"values,omitempty"`
	// Recurse includes subdirectories of a directory app.
	Recurse bool `yaml:"recurse,omitempty"`
}

// UnmarshalYAML accepts both `- apps/x` and `- {path: apps/x, ...}`.
func (c *ContextPath) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		c.Path = n.Value
		return nil
	}
	type plain ContextPath
	var p plain
	dec := n
	if err := decodeStrict(dec, &p); err != nil {
		return err
	}
	*c = ContextPath(p)
	return nil
}

// Parse decodes config data strictly. file names the config in errors.
func Parse(file string, data []byte) (*Config, error) {
	c := &Config{File: file}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	// Typed scalars are checked on the node tree first, so that their
	// errors carry a line (yaml.v3 reports a failing TextUnmarshaler
	// without one).
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, placeError(file, err)
	}
	if err := checkTypedScalars(file, &doc); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		return nil, placeError(file, err)
	}
	c.File = file
	c.TransformsLine = keyLine(&doc, "transforms")
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// Validate checks values that the YAML types alone do not constrain.
func (c *Config) Validate() error {
	for i, s := range c.Suppress {
		if s.Code == "" {
			return fmt.Errorf("suppress entry %d has no code (globs like RG1* are allowed)", i+1)
		}
	}
	for i, p := range c.ContextPaths {
		if p.Path == "" {
			return fmt.Errorf("contextPaths entry %d has no path", i+1)
		}
		if filepath.IsAbs(p.Path) || strings.HasPrefix(filepath.Clean(p.Path), "..") {
			return fmt.Errorf("contextPaths entry %q must be relative to the repository root and inside it", p.Path)
		}
	}
	if v := c.ArgoCDClusterView; v != nil {
		if len(v.Roots) == 0 {
			return fmt.Errorf("argocdClusterView has no roots (the app-of-apps root file, or directories of Application and ApplicationSet manifests)")
		}
		for _, r := range v.Roots {
			if r == "" || filepath.IsAbs(r) || strings.HasPrefix(filepath.Clean(r), "..") {
				return fmt.Errorf("argocdClusterView root %q must be relative to the repository root and inside it", r)
			}
		}
	}
	if c.Plugins != nil {
		if err := c.Plugins.validate(false); err != nil {
			return fmt.Errorf("plugins: %w", err)
		}
	}
	if c.Transforms != nil {
		if err := c.Transforms.validate(); err != nil {
			return fmt.Errorf("transforms: %w", err)
		}
	}
	return nil
}

// checkTypedScalars parses failOn and the severity overrides where they
// stand in the document, naming the line of a bad value.
func checkTypedScalars(file string, doc *yaml.Node) error {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		switch {
		case key == "failOn" && val.Kind == yaml.ScalarNode:
			if _, err := analysis.ParseFailOn(val.Value); err != nil {
				return fmt.Errorf("%s:%d: failOn %w", file, val.Line, err)
			}
		case key == "severity" && val.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(val.Content); j += 2 {
				code, sev := val.Content[j].Value, val.Content[j+1]
				if _, err := analysis.ParseSeverity(sev.Value); err != nil || sev.Kind != yaml.ScalarNode {
					return fmt.Errorf("%s:%d: severity of %s must be error, warning or info, got %q", file, sev.Line, code, sev.Value)
				}
			}
		}
	}
	return nil
}

func decodeStrict(n *yaml.Node, v any) error {
	// Re-encode the node and decode with KnownFields: yaml.v3 applies
	// KnownFields only on the Decoder, not on Node.Decode.
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		// Shift line numbers back to the node's place in the file.
		return shiftLines(err, n.Line-1)
	}
	return nil
}

var lineRE = regexp.MustCompile(`line (\d+):`)

func shiftLines(err error, by int) error {
	msg := lineRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, _ := strconv.Atoi(lineRE.FindStringSubmatch(m)[1])
		return fmt.Sprintf("line %d:", n+by)
	})
	return errors.New(msg)
}

// placeError turns yaml.v3's "yaml: unmarshal errors:\n  line 3: field x
// not found in type config.Config" into "file:3: unknown key x".
func placeError(file string, err error) error {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "yaml:"))
		if l == "" || l == "unmarshal errors:" {
			continue
		}
		if m := regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`).FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("%s:%s: unknown key %q; see the README's .routeguard.yaml reference", file, m[1], m[2])
		} else if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("%s:%s: %s", file, m[1], m[2])
		} else {
			l = fmt.Sprintf("%s: %s", file, l)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: %w", file, err)
	}
	return errors.New(strings.Join(lines, "\n"))
}
