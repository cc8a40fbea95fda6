package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// A kustomization is untrusted input: before Kustomize sees it, routeguard
// refuses every field that would make Kustomize reach the network (a git
// clone runs the git program; a URL is fetched over HTTP) unless the network
// is allowed, and every helmCharts setting that would make Kustomize read or
// write outside the repository and its own temporary directory.

// pathFields are the fields whose strings Kustomize loads as files or
// directories (ldr.Load fetches http(s) URLs, ldr.New clones git URLs).
var pathFields = map[string]bool{
	"resources": true, "bases": true, "components": true, "crds": true, "configurations": true,
	"transformers": true, "generators": true, "validators": true, "patchesStrategicMerge": true,
}

// userPrefix is Kustomize's username form ("git@host:org/repo").
var userPrefix = regexp.MustCompile(`^[a-z][a-z0-9-]*@`)

// isRemoteRef reports whether Kustomize would treat s as something to fetch:
// a URL with a scheme (any, case-insensitive), a git address in scp style
// (user@host:path), a GitHub shorthand, or a query only git URLs have. It is
// wider than Kustomize's own parser (api/internal/git.NewRepoSpecFromURL and
// loader.IsRemoteFile), never narrower.
func isRemoteRef(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	l = strings.TrimPrefix(l, "git::")
	switch {
	case strings.Contains(l, "://"), userPrefix.MatchString(l),
		strings.HasPrefix(l, "github.com/"), strings.HasPrefix(l, "github.com:"),
		strings.Contains(l, "?ref="), strings.Contains(l, "?version="), strings.Contains(l, "?submodules="), strings.Contains(l, "?timeout="):
		return true
	}
	return false
}

// IsRemoteRef reports whether Kustomize would fetch a kustomization's
// path entry s (see isRemoteRef).
func IsRemoteRef(s string) bool { return isRemoteRef(s) }

// IsPathField reports whether Kustomize loads the strings of a
// kustomization's field as files, directories or remote references.
func IsPathField(field string) bool { return pathFields[field] }

// checkKustomization refuses what the kustomization at file (parsed: m)
// must not do.
func (c *confinedFS) checkKustomization(file string, m *yaml.Node) error {
	rel := c.root.rel(file)
	remote := func(n *yaml.Node, field string) error {
		if n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") || !isRemoteRef(n.Value) {
			return nil
		}
		if c.allowNetwork {
			c.root.trace.Opaque(field + " " + n.Value + " is remote")
			return nil
		}
		return &NotFetchedError{msg: fmt.Sprintf("%s:%d: %s %q is remote; routeguard renders offline unless --allow-network is set (vendor it into the repository, or allow the network)",
			rel, n.Line, field, n.Value)}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		switch {
		case pathFields[key] && val.Kind == yaml.SequenceNode:
			for _, item := range val.Content {
				if err := remote(item, key); err != nil {
					return err
				}
			}
		case key == "openapi":
			if p := mappingValue(val, "path"); p != nil {
				if err := remote(p, "openapi.path"); err != nil {
					return err
				}
			}
		case key == "patches" || key == "patchesJson6902" || key == "replacements":
			for _, item := range seqItems(val) {
				if p := mappingValue(item, "path"); p != nil {
					if err := remote(p, key+"[].path"); err != nil {
						return err
					}
				}
			}
		case key == "configMapGenerator" || key == "secretGenerator":
			for _, item := range seqItems(val) {
				for _, f := range []string{"files", "envs"} {
					for _, n := range seqItems(mappingValue(item, f)) {
						// "key=path" or "path"
						v := *n
						if _, after, ok := strings.Cut(v.Value, "="); ok {
							v.Value = after
						}
						if err := remote(&v, key+"[]."+f); err != nil {
							return err
						}
					}
				}
				if p := mappingValue(item, "env"); p != nil {
					if err := remote(p, key+"[].env"); err != nil {
						return err
					}
				}
			}
		case key == "helmGlobals":
			if err := c.checkHelmHome(rel, file, val); err != nil {
				return err
			}
		case key == "helmCharts":
			for _, item := range seqItems(val) {
				if err := c.checkHelmChart(rel, item, remote); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkHelmHome keeps chartHome inside the repository and refuses
// configHome (routeguard answers Kustomize's helm calls itself, with its
// own configuration).
func (c *confinedFS) checkHelmHome(rel, file string, g *yaml.Node) error {
	if n := mappingValue(g, "configHome"); n != nil && n.Value != "" {
		return fmt.Errorf("%s:%d: helmGlobals.configHome is not supported: routeguard answers Kustomize's helm calls itself; remove it", rel, n.Line)
	}
	n := mappingValue(g, "chartHome")
	if n == nil || n.Value == "" {
		return nil
	}
	if filepath.IsAbs(n.Value) {
		return fmt.Errorf("%s:%d: helmGlobals.chartHome %q is absolute; it must be a directory inside the repository, relative to the kustomization", rel, n.Line, n.Value)
	}
	home := filepath.Join(filepath.Dir(file), filepath.FromSlash(n.Value))
	if _, err := c.root.resolve(home); err != nil {
		return fmt.Errorf("%s:%d: helmGlobals.chartHome: %w", rel, n.Line, err)
	}
	return nil
}

// checkHelmChart refuses chart names and release names that Kustomize would
// turn into paths or helm flags.
func (c *confinedFS) checkHelmChart(rel string, item *yaml.Node, remote func(*yaml.Node, string) error) error {
	if n := mappingValue(item, "name"); n != nil {
		if strings.ContainsAny(n.Value, `/\`) || strings.Contains(n.Value, "..") || strings.HasPrefix(n.Value, "-") {
			return fmt.Errorf("%s:%d: helmCharts[].name %q must be a chart name, not a path (Kustomize joins it into file paths it reads and writes)", rel, n.Line, n.Value)
		}
	}
	if n := mappingValue(item, "releaseName"); n != nil && strings.HasPrefix(n.Value, "-") {
		return fmt.Errorf("%s:%d: helmCharts[].releaseName %q must not start with '-'", rel, n.Line, n.Value)
	}
	for _, f := range []string{"valuesFile"} {
		if n := mappingValue(item, f); n != nil {
			if err := remote(n, "helmCharts[]."+f); err != nil {
				return err
			}
		}
	}
	for _, n := range seqItems(mappingValue(item, "additionalValuesFiles")) {
		if err := remote(n, "helmCharts[].additionalValuesFiles"); err != nil {
			return err
		}
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
