package flux

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	securejoin "github.com/cyphar/filepath-securejoin"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/gitrev"
	"github.com/routeguard/routeguard/internal/manifest"
)

// origin is a local directory holding a source's content.
type origin struct {
	dir  string // absolute: the source's artifact as the controllers see it
	real string // the directory it was made from ("" for an assembled artifact)
	self bool   // this checkout
	name string // how messages name it
	// files maps a path relative to dir to the path shown to users (for an
	// artifact assembled from this checkout); nil: prefix applies.
	files map[string]string
	// prefix is dir relative to the repository root ("" for this
	// checkout; "../other" for a directory mapped outside it).
	prefix string
	// source and guess: the GitRepository taken for this checkout by a
	// guess, and why ("" when it is known to be); elsewhere tells, for a
	// path that is not here, whether the guess is wrong.
	source    SourceKey
	guess     string
	elsewhere func(path string) bool
}

// skipError says a node cannot be built here, and why; it is an explicit
// result, not a failure: the controller could build it.
type skipError struct {
	kind   string // group of the reason, for the summary
	reason string
	// missing is the source object the node needs and the tree does not
	// apply, when that is the reason.
	missing *manifest.Key
}

func (e *skipError) Error() string { return e.reason }

func skip(kind, format string, a ...any) error {
	return &skipError{kind: kind, reason: fmt.Sprintf(format, a...)}
}

// skipMissing is skip for a source object (kind, namespace, name of
// Flux's source group) that the tree does not apply.
func skipMissing(kind, namespace, name, format string, a ...any) error {
	return &skipError{kind: kind + " not in the tree", reason: fmt.Sprintf(format, a...),
		missing: &manifest.Key{Group: SourceGroup, Kind: kind, Namespace: namespace, Name: name}}
}

// originOf resolves a sourceRef: a mapped directory, this checkout, an
// artifact assembled from this checkout; else a skip naming the source.
func (b *sources) originOf(ref SourceKey) (*origin, error) {
	if dir, ok := b.mapped[ref]; ok {
		gr, _ := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name)
		art, err := b.sourceArtifact(dir, gr)
		if err != nil {
			return nil, err
		}
		o := &origin{dir: art, real: dir, self: dir == b.root, name: "--source " + ref.String()}
		if o.self {
			o.name = "this checkout"
		} else if rel, err := filepath.Rel(b.root, dir); err == nil {
			o.prefix = filepath.ToSlash(rel)
		} else {
			o.prefix = filepath.ToSlash(dir)
		}
		return o, nil
	}
	switch ref.Kind {
	case "GitRepository":
		gr, declared := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name)
		if b.isSelf(ref, gr) {
			art, err := b.sourceArtifact(b.root, gr)
			if err != nil {
				return nil, err
			}
			return &origin{dir: art, real: b.root, self: true, name: "this checkout", source: ref, guess: b.guessed[ref],
				elsewhere: func(p string) bool { return b.elsewhere(gr, p) }}, nil
		}
		if !declared {
			return nil, skip("GitRepository not in the tree",
				"its source, GitRepository %s/%s, is not among the objects the tree applies; if it is this repository, say so with --source GitRepository/%s/%s=., else map it to a checkout with --source GitRepository/%s/%s=DIR",
				ref.Namespace, ref.Name, ref.Namespace, ref.Name, ref.Namespace, ref.Name)
		}
		return nil, skip("another Git repository",
			"its source, GitRepository %s/%s (%s%s, %s), is another repository or ref than this checkout's; map it to a checkout with --source GitRepository/%s/%s=DIR",
			ref.Namespace, ref.Name, field.String(gr.Body, "spec", "url"), refString(gr), gr.Source, ref.Namespace, ref.Name)
	case "OCIRepository", "Bucket":
		where := ""
		if o, ok := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name); ok {
			where = fmt.Sprintf(" (%s, %s)", cmp.Or(field.String(o.Body, "spec", "url"), field.String(o.Body, "spec", "bucketName")), o.Source)
		}
		return nil, skip(ref.Kind+" source",
			"its source, %s %s/%s%s, is an artifact routeguard does not fetch; map it to a directory with --source %s/%s/%s=DIR",
			ref.Kind, ref.Namespace, ref.Name, where, ref.Kind, ref.Namespace, ref.Name)
	case "ExternalArtifact":
		return b.artifact(ref)
	case "":
		return nil, errors.New("spec.sourceRef.kind is empty; name the source (GitRepository, OCIRepository, Bucket or ExternalArtifact)")
	}
	return nil, fmt.Errorf("spec.sourceRef.kind %q is not a source kustomize-controller reads (GitRepository, OCIRepository, Bucket, ExternalArtifact)", ref.Kind)
}

// isSelf reports whether a GitRepository is this checkout: the one the
// cluster directory's sync uses, or one with the same URL and ref as a
// declared one that is.
func (b *sources) isSelf(ref SourceKey, gr *manifest.Object) bool {
	if b.self[ref] {
		return true
	}
	if gr == nil {
		return false
	}
	for k := range b.self {
		if s, ok := b.state.source(SourceGroup, "GitRepository", k.Namespace, k.Name); ok && sameRepository(s, gr) {
			return true
		}
	}
	return false
}

// sameRepository compares two GitRepositories' URL (scheme, user and .git
// left aside) and ref.
func sameRepository(a, b *manifest.Object) bool {
	ua, ub := normalizeGitURL(field.String(a.Body, "spec", "url")), normalizeGitURL(field.String(b.Body, "spec", "url"))
	return ua != "" && ua == ub && refString(a) == refString(b)
}

func normalizeGitURL(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at := strings.Index(u, "@"); at >= 0 && strings.Contains(u[at:], ":") {
		u = strings.Replace(u[at+1:], ":", "/", 1) // git@host:org/repo
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
}

// refString renders a GitRepository's spec.ref ("" when unset).
func refString(gr *manifest.Object) string {
	ref := field.Map(gr.Body, "spec", "ref")
	var parts []string
	for _, k := range []string{"branch", "tag", "semver", "name", "commit"} {
		if v := field.String(ref, k); v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// sourceRef reads a sourceRef map, defaulting its namespace to ns.
func sourceRef(m map[string]any, ns string) SourceKey {
	return SourceKey{Kind: field.String(m, "kind"), Namespace: cmp.Or(field.String(m, "namespace"), ns), Name: field.String(m, "name")}
}

// localDir resolves p in o.dir the way kustomize-controller and
// source-controller do (securejoin.SecureJoin): a leading "/" and any ".."
// stay inside the source's root ("/apps" is "./apps"), and a symbolic link
// is followed only within it. It returns an existing directory, or an
// error naming the field.
func (o *origin) localDir(what, p string) (string, error) {
	dir, err := securejoin.SecureJoin(o.dir, filepath.FromSlash(p))
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", what, p, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		if (err == nil || errors.Is(err, os.ErrNotExist)) && o.guess != "" && o.elsewhere(p) {
			// Taken for this checkout by a guess: the path says it is not.
			return "", skip("another repository's path",
				"%s %q is not in this checkout: its source, GitRepository %s, was taken for this checkout because %s, but it is likely another repository; map it to a checkout with --source GitRepository/%s=DIR",
				what, p, o.source.Namespace+"/"+o.source.Name, o.guess, o.source.Namespace+"/"+o.source.Name)
		}
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s %q: no such directory in %s (paths are relative to the source's root); fix the path", what, p, o.name)
		}
		return "", fmt.Errorf("%s %q: %w", what, p, err)
	}
	return dir, nil
}

// display maps a path under o.dir to the path users see.
func (o *origin) display(rel string) string {
	if o.files != nil {
		if d, ok := o.files[rel]; ok {
			return d
		}
		return o.name + ": " + rel
	}
	if o.prefix != "" {
		return path.Join(o.prefix, rel)
	}
	return rel
}

// realDir maps a directory of the artifact back to the checkout it was
// made from ("" when there is none).
func (o *origin) realDir(p string) string {
	if o.real == "" {
		return ""
	}
	rel, err := filepath.Rel(o.dir, p)
	if err != nil || !(filepath.IsLocal(rel) || rel == ".") {
		return ""
	}
	return filepath.Join(o.real, rel)
}

// elsewhere tells whether a GitRepository taken for this checkout by a
// guess, with a path that is not here, is another repository: its URL is
// none of the checkout's remotes (when it has any), else the path's first
// directory is not here either (a typo deeper down is this repository's).
func (b *sources) elsewhere(gr *manifest.Object, p string) bool {
	if gr != nil {
		if remotes := b.remotes(); len(remotes) > 0 {
			u := normalizeGitURL(field.String(gr.Body, "spec", "url"))
			for _, r := range remotes {
				if normalizeGitURL(r) == u {
					return false
				}
			}
			return true
		}
	}
	top, _, _ := strings.Cut(strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/"), "/")
	return top != "" && !b.inCheckout(top)
}

// remotes are the URLs of this checkout's git remotes (read once).
func (b *sources) remotes() []string {
	v, _ := b.memo("git remotes", func() (any, error) { return gitrev.RemoteURLs(b.root), nil })
	return v.([]string)
}

// selfFromRoot: when the sync's GitRepository is declared nowhere the root
// applies (a cluster directory without flux bootstrap's gotk-sync.yaml)
// and the root applies exactly one GitRepository, that one is taken for
// this checkout. When it applies none, and the root's Kustomizations all
// build from one GitRepository whose paths exist in this checkout, that
// one is: flux-operator's FluxInstance (spec.sync) makes the GitRepository
// of the directory it syncs, often under its own name.
func (b *sources) selfFromRoot(root *Node) {
	var gits []*manifest.Object
	for _, o := range root.Objects {
		if o.Group() == SourceGroup && o.Kind == "GitRepository" {
			if b.self[SourceKey{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}] {
				return
			}
			gits = append(gits, o)
		}
	}
	if len(gits) == 1 {
		k := SourceKey{Kind: "GitRepository", Namespace: gits[0].Namespace, Name: gits[0].Name}
		b.self[k] = true
		b.guess(k, "it is the only GitRepository the cluster directory applies")
	}
	if len(gits) > 0 || !root.synthetic {
		return
	}
	var only *SourceKey
	for _, o := range root.Objects {
		if o.Group() != KustomizeGroup || o.Kind != "Kustomization" {
			continue
		}
		ref := sourceRef(field.Map(o.Body, "spec", "sourceRef"), o.Namespace)
		if ref.Kind != "GitRepository" || only != nil && ref != *only || !b.inCheckout(field.String(o.Body, "spec", "path")) {
			return
		}
		only = &ref
	}
	if only == nil || b.self[*only] {
		return
	}
	if _, declared := b.state.lookup("GitRepository", only.Namespace, only.Name); declared {
		return
	}
	b.self[*only] = true
	b.selfNotes = append(b.selfNotes, fmt.Sprintf("GitRepository %s/%s, which the cluster directory's Kustomizations build from and no file here declares (as when flux-operator's FluxInstance makes it), is taken as this checkout; if it is another repository, map it with --source GitRepository/%s/%s=DIR",
		only.Namespace, only.Name, only.Namespace, only.Name))
}

// syncSourceHere takes the conventional sync source, GitRepository
// flux-system/flux-system, for this checkout when no file of the tree
// declares it (flux bootstrap or flux-operator's FluxInstance makes it in
// the cluster) and a Kustomization on it builds a path that is here, with
// a note once. It runs when a node is discovered (never while nodes build,
// which read b.self).
func (b *sources) syncSourceHere(ref SourceKey, p string) {
	if ref != SyncSource || !b.inCheckout(p) {
		return
	}
	if b.self[ref] || b.mapped[ref] != "" {
		return
	}
	if _, declared := b.state.source(SourceGroup, ref.Kind, ref.Namespace, ref.Name); declared {
		return
	}
	b.self[ref] = true
	b.selfNotes = append(b.selfNotes, fmt.Sprintf("GitRepository %s, which no file of the tree declares (flux bootstrap or flux-operator's FluxInstance makes it in the cluster), is taken as this checkout: the Kustomizations on it build paths that are here; if it is another repository, map it with --source GitRepository/%s=DIR",
		ref.Namespace+"/"+ref.Name, ref.Namespace+"/"+ref.Name))
}

// guess records why a GitRepository was taken for this checkout.
func (b *sources) guess(k SourceKey, why string) {
	if b.guessed == nil {
		b.guessed = map[SourceKey]string{}
	}
	b.guessed[k] = why
}
