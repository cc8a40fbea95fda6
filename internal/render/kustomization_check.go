package render

import (
	"cmp"
	"errors"
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

// FirstRemoteRef parses a kustomization file and returns the first string
// Kustomize would fetch from the network (see isRemoteRef) among those it
// loads as files, directories or URLs (loadedPaths), with its field and
// line. A file that does not parse has none: Kustomize reports it.
func FirstRemoteRef(data []byte) (field, value string, line int, ok bool) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return "", "", 0, false
	}
	errFound := errors.New("found")
	err := loadedPaths(doc.Content[0], func(n *yaml.Node, f string) error {
		if isRemoteRef(n.Value) {
			field, value, line = f, n.Value, n.Line
			return errFound
		}
		return nil
	})
	return field, value, line, err == errFound
}

// checkKustomization refuses what the kustomization at file (parsed: m)
// must not do.
func (c *confinedFS) checkKustomization(file string, m *yaml.Node) error {
	rel := c.root.rel(file)
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		switch key {
		case "helmGlobals":
			if err := c.checkHelmHome(rel, file, val); err != nil {
				return err
			}
		case "helmCharts":
			for _, item := range seqItems(val) {
				if err := checkHelmChart(rel, item); err != nil {
					return err
				}
			}
		}
	}
	return loadedPaths(m, func(n *yaml.Node, field string) error {
		if !isRemoteRef(n.Value) {
			return nil
		}
		if c.allowNetwork {
			c.root.trace.Opaque(field + " " + n.Value + " is remote")
			return nil
		}
		return &NotFetchedError{msg: fmt.Sprintf("%s:%d: %s %q is remote; routeguard renders offline unless --allow-network is set (vendor it into the repository, or allow the network)",
			rel, n.Line, field, n.Value)}
	})
}

// loadedPaths calls visit with every string of the kustomization m that
// Kustomize loads as a file, a directory or a URL (ldr.Load fetches http(s)
// URLs, ldr.New clones git URLs), and the field it is in, until visit
// returns an error.
func loadedPaths(m *yaml.Node, visit func(n *yaml.Node, field string) error) error {
	scalar := func(n *yaml.Node, field string) error {
		if n == nil || n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
			return nil
		}
		return visit(n, field)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		switch {
		case pathFields[key]:
			for _, item := range seqItems(val) {
				if err := scalar(item, key); err != nil {
					return err
				}
			}
		case key == "openapi":
			if err := scalar(mappingValue(val, "path"), "openapi.path"); err != nil {
				return err
			}
		case key == "patches" || key == "patchesJson6902" || key == "replacements":
			for _, item := range seqItems(val) {
				if err := scalar(mappingValue(item, "path"), key+"[].path"); err != nil {
					return err
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
						if err := scalar(&v, key+"[]."+f); err != nil {
							return err
						}
					}
				}
				if err := scalar(mappingValue(item, "env"), key+"[].env"); err != nil {
					return err
				}
			}
		case key == "helmCharts":
			for _, item := range seqItems(val) {
				if err := scalar(mappingValue(item, "valuesFile"), "helmCharts[].valuesFile"); err != nil {
					return err
				}
				for _, n := range seqItems(mappingValue(item, "additionalValuesFiles")) {
					if err := scalar(n, "helmCharts[].additionalValuesFiles"); err != nil {
						return err
					}
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
func checkHelmChart(rel string, item *yaml.Node) error {
	if n := mappingValue(item, "name"); n != nil {
		if strings.ContainsAny(n.Value, `/\`) || strings.Contains(n.Value, "..") || strings.HasPrefix(n.Value, "-") {
			return fmt.Errorf("%s:%d: helmCharts[].name %q must be a chart name, not a path (Kustomize joins it into file paths it reads and writes)", rel, n.Line, n.Value)
		}
	}
	if n := mappingValue(item, "releaseName"); n != nil && strings.HasPrefix(n.Value, "-") {
		return fmt.Errorf("%s:%d: helmCharts[].releaseName %q must not start with '-'", rel, n.Line, n.Value)
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// RemoteRef is a string of a kustomization that Kustomize would fetch from
// the network (isRemoteRef): a remote base, resource or component, a
// generator's file, a patch.
type RemoteRef struct {
	File  string // the kustomization, as users see it
	Line  int
	Field string // "resources", "configMapGenerator[].files", ...
	Value string
}

// What says what kind of remote it is: "a remote resource (a Git
// repository)", "a remote generator input (an HTTP(S) file)", ...
func (r RemoteRef) What() string {
	kind := "an HTTP(S) file"
	if looksLikeGit(r.Value) {
		kind = "a Git repository"
	}
	what := map[string]string{"resources": "resource", "bases": "base", "components": "component", "crds": "CRD file",
		"configurations": "configuration", "generators": "generator", "transformers": "transformer", "validators": "validator",
		"patchesStrategicMerge": "patch", "patches[].path": "patch", "patchesJson6902[].path": "patch", "replacements[].path": "replacement",
		"openapi.path": "OpenAPI schema", "helmCharts[].valuesFile": "Helm values file", "helmCharts[].additionalValuesFiles": "Helm values file"}[r.Field]
	if strings.Contains(r.Field, "Generator[]") {
		what = "generator input"
	}
	return "a remote " + cmp.Or(what, r.Field+" entry") + " (" + kind + ")"
}

// looksLikeGit reports whether a remote reference names a Git repository
// (Kustomize clones it) rather than a file it downloads.
func looksLikeGit(v string) bool {
	l := strings.ToLower(strings.TrimSpace(v))
	switch {
	case strings.HasPrefix(l, "git::"), userPrefix.MatchString(l), strings.HasPrefix(l, "github.com/"), strings.HasPrefix(l, "github.com:"),
		strings.Contains(l, "?ref="), strings.Contains(l, "?version="), strings.Contains(l, "?submodules="),
		strings.HasSuffix(l, ".git"), strings.Contains(l, ".git/"), strings.Contains(l, ".git?"):
		return true
	}
	_, rest, ok := strings.Cut(l, "://")
	return ok && strings.Contains(rest, "//") // repo//path
}

// AddsObjects reports whether what the reference names adds objects to the
// build (a base, resource, component or CRD), rather than data or changes
// to objects the build has (a generator's file, a patch).
func (r RemoteRef) AddsObjects() bool {
	switch r.Field {
	case "resources", "bases", "components", "crds":
		return true
	}
	return false
}

func (r RemoteRef) String() string {
	return fmt.Sprintf("%s:%d: %s %q is %s", r.File, r.Line, r.Field, r.Value, r.What())
}

// DropRemoteRefs removes from the kustomization m every string Kustomize
// would fetch from the network (those FirstRemoteRef finds), so that the
// rest builds offline, and returns them (file names the kustomization in
// them). A generator entry or patch left without its remote file is
// removed whole.
func DropRemoteRefs(m *yaml.Node, file string) []RemoteRef {
	var out []RemoteRef
	remote := func(n *yaml.Node, field string) bool {
		if n == nil || n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
			return false
		}
		v := n.Value
		if strings.HasSuffix(field, ".files") || strings.HasSuffix(field, ".envs") {
			if _, after, ok := strings.Cut(v, "="); ok {
				v = after
			}
		}
		if !isRemoteRef(v) {
			return false
		}
		out = append(out, RemoteRef{File: file, Line: n.Line, Field: field, Value: v})
		return true
	}
	filter := func(seq *yaml.Node, keep func(*yaml.Node) bool) {
		if seq == nil || seq.Kind != yaml.SequenceNode {
			return
		}
		kept := seq.Content[:0]
		for _, item := range seq.Content {
			if keep(item) {
				kept = append(kept, item)
			}
		}
		seq.Content = kept
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		switch {
		case pathFields[key]:
			filter(val, func(n *yaml.Node) bool { return !remote(n, key) })
		case key == "patches" || key == "patchesJson6902" || key == "replacements":
			filter(val, func(n *yaml.Node) bool { return !remote(mappingValue(n, "path"), key+"[].path") })
		case key == "configMapGenerator" || key == "secretGenerator":
			for _, item := range seqItems(val) {
				for _, f := range []string{"files", "envs"} {
					filter(mappingValue(item, f), func(n *yaml.Node) bool { return !remote(n, key+"[]."+f) })
				}
				if remote(mappingValue(item, "env"), key+"[].env") {
					deleteKey(item, "env")
				}
			}
		case key == "helmCharts":
			for _, item := range seqItems(val) {
				if remote(mappingValue(item, "valuesFile"), "helmCharts[].valuesFile") {
					deleteKey(item, "valuesFile")
				}
				filter(mappingValue(item, "additionalValuesFiles"), func(n *yaml.Node) bool { return !remote(n, "helmCharts[].additionalValuesFiles") })
			}
		case key == "openapi":
			if remote(mappingValue(val, "path"), "openapi.path") {
				deleteKey(val, "path")
			}
		}
	}
	return out
}

func deleteKey(m *yaml.Node, key string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}
