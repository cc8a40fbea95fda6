package flux

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	swapi "github.com/fluxcd/source-watcher/api/v2/v1beta1"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
)

// artifact resolves an ExternalArtifact that a Flux 2.7 ArtifactGenerator
// (source.extensions.fluxcd.io) assembles: when every source its copy
// operations read is this checkout (or mapped with --source), the artifact
// is assembled the way source-watcher does it into a scratch directory,
// and its files keep their paths in the repository for messages.
func (b *sources) artifact(ref SourceKey) (*origin, error) {
	v, err := b.memo("artifact "+ref.String(), func() (any, error) { return b.assemble(ref) })
	if err != nil {
		return nil, err
	}
	return v.(*origin), nil
}

func (b *sources) assemble(ref SourceKey) (*origin, error) {
	gen, spec, out := b.generatorOf(ref)
	if gen == nil {
		return nil, skip("ExternalArtifact not made in the tree",
			"its source, ExternalArtifact %s/%s, is made by no ArtifactGenerator among the objects the tree applies; map it to a directory with --source ExternalArtifact/%s/%s=DIR",
			ref.Namespace, ref.Name, ref.Namespace, ref.Name)
	}
	if spec.PathPattern != "" {
		return nil, skip("ArtifactGenerator pathPattern", "its source, ExternalArtifact %s/%s, comes from %s (%s) with spec.pathPattern, which routeguard does not assemble; map it with --source ExternalArtifact/%s/%s=DIR",
			ref.Namespace, ref.Name, gen, gen.Source, ref.Namespace, ref.Name)
	}
	origins := map[string]*origin{}
	for _, s := range spec.Sources {
		key := SourceKey{Kind: s.Kind, Namespace: cmp.Or(s.Namespace, gen.Namespace), Name: s.Name}
		o, err := b.originOf(key)
		var se *skipError
		if errors.As(err, &se) {
			return nil, skip(se.kind, "its source, ExternalArtifact %s/%s, is assembled by %s (%s) from %s, which routeguard cannot read: %s",
				ref.Namespace, ref.Name, gen, gen.Source, key, se.reason)
		}
		if err != nil {
			return nil, fmt.Errorf("%s (%s): source %q: %w", gen, gen.Source, s.Alias, err)
		}
		origins[s.Alias] = o
	}
	stage, err := b.scratch("artifact-" + ref.Namespace + "-" + ref.Name)
	if err != nil {
		return nil, err
	}
	o := &origin{dir: stage, name: fmt.Sprintf("ExternalArtifact %s/%s (%s)", ref.Namespace, ref.Name, gen), files: map[string]string{}}
	for i, op := range out.Copy {
		if err := copyOperation(op, origins, o, b.check); err != nil {
			return nil, fmt.Errorf("%s (%s): spec.artifacts[%s].copy[%d] (from %q to %q): %w", gen, gen.Source, out.Name, i, op.From, op.To, err)
		}
	}
	return o, nil
}

// generatorOf finds the ArtifactGenerator that makes the ExternalArtifact.
func (b *sources) generatorOf(ref SourceKey) (*manifest.Object, *swapi.ArtifactGeneratorSpec, *swapi.OutputArtifact) {
	for _, g := range b.state.set.ByKind(SourceExtensionsGroup, swapi.ArtifactGeneratorKind) {
		if g.Namespace != ref.Namespace {
			continue
		}
		var ag swapi.ArtifactGenerator
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(g.Body, &ag); err != nil {
			continue
		}
		for i := range ag.Spec.OutputArtifacts {
			if ag.Spec.OutputArtifacts[i].Name == ref.Name {
				return g, &ag.Spec, &ag.Spec.OutputArtifacts[i]
			}
		}
	}
	return nil, nil, nil
}

// copyOperation applies one copy operation with source-watcher's cp-like
// semantics: a path copies that file (to dest/, or as dest) or that
// directory (as dest/<dir>); a glob (Go's fs.Glob: "**" matches one level)
// copies each match, "dir/**" the contents of dir; exclude patterns
// (doublestar) match the source path or its path below the glob's root;
// strategy Merge deep-merges YAML into an existing file.
// check refuses a source file over the size limit (builder.check).
func copyOperation(op swapi.CopyOperation, origins map[string]*origin, dst *origin, check func(string) error) error {
	alias, pattern, ok := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
	if !strings.HasPrefix(op.From, "@") || !ok {
		return errors.New("from must be @alias/path")
	}
	if !strings.HasPrefix(op.To, "@artifact/") {
		return errors.New("to must start with @artifact/")
	}
	dest := strings.TrimPrefix(op.To, "@artifact/")
	src, ok := origins[alias]
	if !ok {
		return fmt.Errorf("source alias %q is not in spec.sources", alias)
	}
	if op.Strategy == swapi.ExtractStrategy {
		return errors.New("strategy Extract (tarballs) is not assembled by routeguard")
	}
	for _, p := range op.Exclude {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("invalid exclude pattern %q", p)
		}
	}
	root, err := os.OpenRoot(src.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	c := copier{op: op, src: src, fsys: root.FS(), dst: dst, skip: sourceignore.NewDefaultMatcher(nil, nil), check: check}
	if !strings.ContainsAny(pattern, "*?[]") {
		p := path.Clean(pattern)
		fi, err := fs.Stat(c.fsys, p)
		if err != nil {
			return fmt.Errorf("source %q does not exist in %s", p, src.name)
		}
		if fi.IsDir() {
			return c.tree(p, path.Join(dest, path.Base(p)), p)
		}
		if excluded(p, ".", op.Exclude) {
			return nil
		}
		target := dest
		if strings.HasSuffix(op.To, "/") || isDir(filepath.Join(dst.dir, filepath.FromSlash(dest))) {
			target = path.Join(dest, path.Base(p))
		}
		return c.file(p, target)
	}
	matches, err := fs.Glob(c.fsys, pattern)
	if err != nil {
		return fmt.Errorf("invalid glob %q: %w", pattern, err)
	}
	base := globRoot(pattern)
	var kept []string
	for _, m := range matches {
		if m != "." && m != ".." && !excluded(m, base, op.Exclude) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no files match %q in %s", pattern, src.name)
	}
	for _, m := range kept {
		target := path.Join(dest, m)
		if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
			if rest, ok := strings.CutPrefix(m, prefix+"/"); ok {
				target = path.Join(dest, rest)
			}
		}
		fi, err := fs.Stat(c.fsys, m)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			err = c.tree(m, target, base)
		} else {
			err = c.file(m, target)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type copier struct {
	op   swapi.CopyOperation
	src  *origin
	fsys fs.FS
	dst  *origin
	// skip: what the artifact's archive leaves out (source-watcher archives
	// with source-controller's default exclusions).
	skip gitignore.Matcher
	// check refuses a file over the size limit before it is read.
	check func(string) error
}

func (c copier) tree(from, to, base string) error {
	return fs.WalkDir(c.fsys, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, from), "/")
		if rel == "" {
			return nil
		}
		if excluded(p, base, c.op.Exclude) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		return c.file(p, path.Join(to, rel))
	})
}

func (c copier) file(from, to string) error {
	if !filepath.IsLocal(filepath.FromSlash(to)) {
		return fmt.Errorf("destination %q leads outside the artifact", to)
	}
	if c.skip.Match(strings.Split(to, "/"), false) {
		return nil
	}
	if err := c.check(filepath.Join(c.src.dir, filepath.FromSlash(from))); err != nil {
		return err
	}
	data, err := fs.ReadFile(c.fsys, from)
	if err != nil {
		return err
	}
	target := filepath.Join(c.dst.dir, filepath.FromSlash(to))
	if c.op.Strategy == swapi.MergeStrategy {
		if old, err := os.ReadFile(target); err == nil {
			if data, err = mergeYAMLFiles(old, data); err != nil {
				return fmt.Errorf("merging %s into %s: %w", from, to, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(target, data, 0o644); err != nil {
		return err
	}
	c.dst.files[to] = c.src.display(from)
	return nil
}

// mergeYAMLFiles deep-merges the documents of overlay over base (maps
// merged, everything else replaced), as source-watcher's Merge strategy.
func mergeYAMLFiles(base, overlay []byte) ([]byte, error) {
	merged := map[string]any{}
	for _, data := range [][]byte{base, overlay} {
		for _, doc := range strings.Split("\n"+string(data), "\n---") {
			m := map[string]any{}
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				return nil, err
			}
			merged = loader.MergeMaps(merged, m)
		}
	}
	return yaml.Marshal(merged)
}

// globRoot is the literal prefix of a pattern before its first glob segment.
func globRoot(pattern string) string {
	var parts []string
	for _, p := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(p, "*?[]") {
			break
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}

// excluded matches exclude patterns against p and against p relative to
// base; a pattern without "/" also matches the file name alone.
func excluded(p, base string, patterns []string) bool {
	cands := []string{p}
	if base != "." && base != "" {
		if rel, ok := strings.CutPrefix(p, base+"/"); ok {
			cands = append(cands, rel)
		}
	}
	for _, pat := range patterns {
		for _, c := range cands {
			if doublestar.MatchUnvalidated(pat, c) {
				return true
			}
		}
		if !strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, path.Base(p)) {
			return true
		}
	}
	return false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
