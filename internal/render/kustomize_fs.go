package render

import (
	"fmt"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizationFileNames are the names Kustomize (and Argo CD) look for.
var kustomizationFileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

func isKustomizationFile(p string) bool {
	base := filepath.Base(p)
	for _, n := range kustomizationFileNames {
		if base == n {
			return true
		}
	}
	return false
}

// confinedFS is the file system krusty sees: the disk, read-only, confined
// to the repository root. Reading a kustomization also refuses remote bases
// when the network is off and asks Kustomize to record each resource's
// origin, so that objects keep their source file.
type confinedFS struct {
	filesys.FileSystem
	root         *root
	allowNetwork bool
	maxBytes     int64
	// overlay holds files written by KustomizeOptions.Edit (absolute path
	// -> content); they are read instead of the files on disk.
	overlay map[string][]byte
	// refused is the first remote reference refused while the network is
	// off. Kustomize hides read errors of kustomization files behind "file
	// not found", so the error is kept here and reported after the build.
	refused error
}

func newConfinedFS(r *root, allowNetwork bool, maxBytes int64) *confinedFS {
	return &confinedFS{FileSystem: filesys.MakeFsOnDisk(), root: r, allowNetwork: allowNetwork, maxBytes: maxBytes}
}

func (c *confinedFS) check(p string) error {
	_, err := c.root.resolve(p)
	return err
}

func (c *confinedFS) ReadFile(p string) ([]byte, error) {
	data, ok := c.overlay[filepath.Clean(p)]
	if !ok {
		var err error
		if data, err = c.root.readFile(p, c.maxBytes); err != nil {
			return nil, err
		}
	}
	if isKustomizationFile(p) {
		return c.prepareKustomization(p, data)
	}
	return data, nil
}

func (c *confinedFS) Open(p string) (filesys.File, error) {
	if err := c.check(p); err != nil {
		return nil, err
	}
	return c.FileSystem.Open(p)
}

func (c *confinedFS) IsDir(p string) bool  { return c.check(p) == nil && c.FileSystem.IsDir(p) }
func (c *confinedFS) Exists(p string) bool { return c.check(p) == nil && c.FileSystem.Exists(p) }

func (c *confinedFS) ReadDir(p string) ([]string, error) {
	if err := c.check(p); err != nil {
		return nil, err
	}
	return c.FileSystem.ReadDir(p)
}

func (c *confinedFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if err := c.check(p); err != nil {
		return "", "", err
	}
	return c.FileSystem.CleanedAbs(p)
}

func (c *confinedFS) Glob(pattern string) ([]string, error) {
	matches, err := c.FileSystem.Glob(pattern)
	if err != nil {
		return nil, err
	}
	for _, m := range matches {
		if err := c.check(m); err != nil {
			return nil, err
		}
	}
	return matches, nil
}

func (c *confinedFS) Walk(p string, fn filepath.WalkFunc) error {
	if err := c.check(p); err != nil {
		return err
	}
	return c.FileSystem.Walk(p, fn)
}

func (c *confinedFS) readOnly(p string) error {
	return fmt.Errorf("%s: routeguard renders read-only and does not write into the repository", c.root.rel(p))
}

func (c *confinedFS) Create(p string) (filesys.File, error) { return nil, c.readOnly(p) }
func (c *confinedFS) Mkdir(p string) error                  { return c.readOnly(p) }
func (c *confinedFS) MkdirAll(p string) error               { return c.readOnly(p) }
func (c *confinedFS) RemoveAll(p string) error              { return c.readOnly(p) }
func (c *confinedFS) WriteFile(p string, _ []byte) error    { return c.readOnly(p) }

// originAnnotation is where Kustomize records each resource's source file.
const originAnnotation = "config.kubernetes.io/origin"

// prepareKustomization refuses remote resources without AllowNetwork and
// turns on originAnnotations. Documents that do not parse are passed through
// untouched so that Kustomize reports the error in its own words.
func (c *confinedFS) prepareKustomization(p string, data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil
	}
	m := doc.Content[0]
	if !c.allowNetwork {
		for _, field := range []string{"resources", "bases", "components"} {
			seq := mappingValue(m, field)
			if seq == nil || seq.Kind != yaml.SequenceNode {
				continue
			}
			kept := seq.Content[:0]
			for _, item := range seq.Content {
				if !isRemoteRef(item.Value) {
					kept = append(kept, item)
					continue
				}
				if c.refused == nil {
					c.refused = fmt.Errorf("%s:%d: %s %q is remote; routeguard renders offline unless --allow-network is set (vendor it into the repository, or allow the network)",
						c.root.rel(p), item.Line, field, item.Value)
				}
			}
			// Dropping the entry keeps Kustomize from cloning it at all.
			seq.Content = kept
		}
	}
	bm := mappingValue(m, "buildMetadata")
	if bm == nil {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: "buildMetadata"},
			&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "originAnnotations"}}})
	} else if bm.Kind == yaml.SequenceNode && !hasScalar(bm, "originAnnotations") {
		bm.Content = append(bm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "originAnnotations"})
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return data, nil
	}
	return out, nil
}

// userWantsOrigins reports whether the app's own kustomization asks for
// origin annotations (then routeguard keeps them in the output).
func userWantsOrigins(data []byte) bool {
	var k struct {
		BuildMetadata []string `yaml:"buildMetadata"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return false
	}
	for _, b := range k.BuildMetadata {
		if b == "originAnnotations" {
			return true
		}
	}
	return false
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func hasScalar(seq *yaml.Node, v string) bool {
	for _, n := range seq.Content {
		if n.Value == v {
			return true
		}
	}
	return false
}

// isRemoteRef recognises the remote forms Kustomize accepts: URLs, scp-like
// git addresses and host-prefixed repository paths.
func isRemoteRef(s string) bool {
	switch {
	case strings.Contains(s, "://"), strings.HasPrefix(s, "git@"), strings.Contains(s, "?ref="), strings.Contains(s, "?version="):
		return true
	}
	for _, host := range []string{"github.com/", "gitlab.com/", "bitbucket.org/"} {
		if strings.HasPrefix(s, host) {
			return true
		}
	}
	return false
}
