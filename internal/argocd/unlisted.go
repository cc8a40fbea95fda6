package argocd

import (
	"path"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/notice"
)

// dropUnlisted leaves out the Applications no Argo CD creates: one that a
// repository file declares, that no parent renders, and whose directory
// another Application renders (as Kustomize or plain directory) without it
// in the output — the kustomization.yaml there does not list the file (a
// disabled app, "- scheduling-app.yaml" taken out of resources), or the
// directory source excludes it. Analyzing it would report what Argo CD
// never syncs (a false RG0009 for its missing path); it is skipped with a
// warning, as are the Applications it renders. An Application that renders
// its own directory (a root beside its children) is kept.
func (b *builder) dropUnlisted() {
	renderedBy := map[string][]string{} // directory -> keys of the apps rendering it
	for key, r := range b.apps {
		if r.Set == nil {
			continue
		}
		for _, s := range r.Sources {
			if s.Skipped != "" || (s.Tool != "Kustomize" && s.Tool != "Directory") {
				continue
			}
			dir := path.Clean(strings.TrimPrefix(s.Where, "/"))
			renderedBy[dir] = append(renderedBy[dir], key)
		}
	}
	for _, key := range slices.Sorted(mapsKeys(b.apps)) {
		r, ok := b.apps[key]
		if !ok || r.App == nil || b.parent[key] != "" || r.App.Source.File == "" {
			continue
		}
		dir := path.Dir(r.App.Source.File)
		var by string
		for _, other := range renderedBy[dir] {
			if !b.descendsFrom(other, key) {
				by = other
				break
			}
		}
		if by == "" {
			continue
		}
		b.notices = append(b.notices, notice.Notice{Level: notice.Warning, Text: "Application " + key + " (" + r.App.Source.String() +
			") is in " + dir + ", which Application " + by + " renders without it (its kustomization.yaml does not list the file, or the directory source excludes it): Argo CD does not create it; skipped. If it is applied by hand, analyze it alone: routeguard argocd analyze --repo-url URL " + r.App.Source.File})
		b.drop(key)
	}
}

// descendsFrom reports whether the Application key was rendered, directly
// or through other Applications, by ancestor (or is it).
func (b *builder) descendsFrom(key, ancestor string) bool {
	for range maxWaves + 1 {
		if key == ancestor {
			return true
		}
		p, ok := strings.CutPrefix(b.parent[key], "Application ")
		if !ok {
			return false
		}
		key = p
	}
	return false
}

// drop removes the Application key and every Application it rendered.
func (b *builder) drop(key string) {
	for _, k := range slices.Sorted(mapsKeys(b.apps)) {
		if k != key && b.descendsFrom(k, key) {
			delete(b.apps, k)
			delete(b.parent, k)
		}
	}
	delete(b.apps, key)
	delete(b.parent, key)
}
