package render

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
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

// confinedFS is the file system krusty sees: the repository, read-only,
// every read through the confined root (internal/confine: symlinks resolved
// inside the root at every level, no .git, regular files only, a size
// limit). Reading a kustomization also refuses what would reach the network
// or write outside (see prepareKustomization) and asks Kustomize to record
// each resource's origin, so that objects keep their source file.
type confinedFS struct {
	root         *root
	allowNetwork bool
	maxBytes     int64
	// overlay holds files written by KustomizeOptions.Edit (absolute path
	// -> content); they are read instead of the files on disk.
	overlay map[string][]byte
	// skipMissingCharts: leave out helmCharts entries whose chart is not in
	// the repository (Options.SkipMissingCharts); missing lists them.
	skipMissingCharts bool
	missing           []MissingChart
	missingSeen       map[MissingChart]bool
	// skipRemote: leave out what the kustomizations name remotely
	// (Options.SkipRemote, offline); remote lists it.
	skipRemote bool
	remote     []RemoteRef
	// refused is the first reference refused. Kustomize hides read errors
	// of kustomization files behind "file not found", so the error is kept
	// here and reported after the build.
	refused error
}

var _ filesys.FileSystem = (*confinedFS)(nil)

func newConfinedFS(r *root, allowNetwork bool, maxBytes int64) *confinedFS {
	return &confinedFS{root: r, allowNetwork: allowNetwork, maxBytes: maxBytes}
}

func (c *confinedFS) refuse(err error) error {
	if c.refused == nil {
		c.refused = err
	}
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
	if err := manifest.CheckAliases(c.root.rel(p), data); err != nil {
		return nil, c.refuse(err)
	}
	if isKustomizationFile(p) {
		return c.prepareKustomization(p, data)
	}
	return data, nil
}

func (c *confinedFS) Open(p string) (filesys.File, error) {
	if _, err := c.root.resolve(p); err != nil {
		return nil, err
	}
	return c.root.Open(p)
}

func (c *confinedFS) IsDir(p string) bool {
	_, err := c.root.resolve(p)
	return err == nil && c.root.IsDir(p)
}

func (c *confinedFS) Exists(p string) bool {
	_, err := c.root.resolve(p)
	return err == nil && c.root.Exists(p)
}

func (c *confinedFS) ReadDir(p string) ([]string, error) {
	if _, err := c.root.resolve(p); err != nil {
		return nil, err
	}
	entries, err := c.root.ReadDir(p)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// CleanedAbs splits p, symlinks resolved, into a directory and a file name
// (empty when p is a directory), as Kustomize's disk file system does.
func (c *confinedFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	real, err := c.root.resolve(p)
	if err != nil {
		return "", "", err
	}
	fi, err := c.root.Stat(real)
	if err != nil {
		return "", "", err
	}
	if fi.IsDir() {
		return filesys.ConfirmedDir(real), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(real)), filepath.Base(real), nil
}

func (c *confinedFS) Glob(pattern string) ([]string, error) { return c.root.Glob(pattern) }

func (c *confinedFS) Walk(p string, fn filepath.WalkFunc) error {
	real, err := c.root.resolve(p)
	if err != nil {
		return err
	}
	return c.root.Walk(real, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		err := fn(filepath.Join(real, filepath.FromSlash(rel)), fi, nil)
		if err == filepath.SkipDir {
			return confine.SkipDir
		}
		return err
	})
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

// prepareKustomization refuses what the kustomization must not do
// (checkKustomization) and turns on originAnnotations. Documents that do not parse are passed through
// untouched so that Kustomize reports the error in its own words.
func (c *confinedFS) prepareKustomization(p string, data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil
	}
	m := doc.Content[0]
	if c.skipRemote {
		for _, ref := range DropRemoteRefs(m, c.root.rel(p)) {
			if !slices.Contains(c.remote, ref) {
				c.remote = append(c.remote, ref)
			}
		}
	}
	if err := c.checkKustomization(p, m); err != nil {
		// Refused before Kustomize sees it: nothing is fetched or written.
		return nil, c.refuse(err)
	}
	if c.skipMissingCharts {
		c.dropMissingCharts(p, m)
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
