package argocd

import (
	"cmp"
	"path"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// isKustomization reports whether a file name is one Kustomize reads as a
// kustomization.
func isKustomization(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// readPatches records the files the kustomization at p uses as patches
// (patches[].path, patchesStrategicMerge, patchesJson6902[].path). A
// kustomization that does not parse records nothing: rendering reports it.
func (s *scanned) readPatches(repo *thisRepo, p string) {
	data, err := repo.read(p)
	if err != nil {
		return
	}
	type target struct {
		Kind string `json:"kind"`
	}
	var k struct {
		Resources []string `json:"resources"`
		Patches   []struct {
			Path   string `json:"path"`
			Patch  string `json:"patch"`
			Target target `json:"target"`
		} `json:"patches"`
		PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
		PatchesJSON6902       []struct {
			Path   string `json:"path"`
			Target target `json:"target"`
		} `json:"patchesJson6902"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return
	}
	s.kustomizations[path.Dir(repo.rel(p))] = k.Resources
	for _, e := range k.Patches {
		if e.Target.Kind == "AppProject" || strings.Contains(e.Patch, "kind: AppProject") {
			s.projectPatches[path.Dir(repo.rel(p))] = repo.rel(p)
		}
	}
	for _, e := range k.PatchesJSON6902 {
		if e.Target.Kind == "AppProject" {
			s.projectPatches[path.Dir(repo.rel(p))] = repo.rel(p)
		}
	}
	files := slices.Clone(k.PatchesStrategicMerge)
	for _, e := range k.Patches {
		files = append(files, e.Path)
	}
	for _, e := range k.PatchesJSON6902 {
		files = append(files, e.Path)
	}
	kust := repo.rel(p)
	for _, f := range files {
		if f == "" || strings.Contains(f, "\n") || isRemote(f) {
			continue // an inline patch, or none
		}
		s.patches[path.Join(path.Dir(kust), f)] = kust
	}
}

// declared sorts out the scanned Argo CD manifests before they are
// adopted: Applications that are patch fragments (a kustomization's
// patch, or no destination or no source) are left out with a warning;
// a second manifest of an identical Application is kept once with a note;
// different Applications sharing a namespace and name (one per Argo CD
// instance) are all kept, each told apart by its file (Twin).
func (b *builder) declared(found *scanned) []*manifest.Object {
	var out []*manifest.Object
	byKey := map[string][]*manifest.Object{}
	for _, o := range found.objects {
		if !isArgo(o, kindApplication) {
			out = append(out, o)
			continue
		}
		if why := fragmentReason(o, found.patches); why != "" {
			b.note(notice.Warning, "%s: Application %s looks like a patch fragment (%s), not an Application Argo CD could sync; skipped", o.Source, o.Name, why)
			continue
		}
		key := cmp.Or(o.Namespace, b.opts.AppNamespace) + "/" + o.Name
		if first := sameApplication(byKey[key], o); first != nil {
			if first.Source != o.Source {
				b.note(notice.Note, "Application %s is declared twice with the same spec (%s and %s); analyzed once, from %s", key, first.Source, o.Source, first.Source)
			}
			continue
		}
		byKey[key] = append(byKey[key], o)
		out = append(out, o)
	}
	b.markTwins(byKey)
	return out
}

// fragmentReason says why a scanned Application is a patch fragment
// rather than an Application: "" when it is not one.
func fragmentReason(o *manifest.Object, patches map[string]string) string {
	if kust, ok := patches[o.Source.File]; ok {
		return kust + " uses the file as a patch"
	}
	spec, _ := o.Body["spec"].(map[string]any)
	dest, _ := spec["destination"].(map[string]any)
	server, _ := dest["server"].(string)
	name, _ := dest["name"].(string)
	if server == "" && name == "" {
		return "it has no spec.destination server or name"
	}
	if spec["source"] == nil && spec["sources"] == nil && spec["sourceHydrator"] == nil {
		return "it has no spec.source, spec.sources or spec.sourceHydrator"
	}
	return ""
}

// sameApplication returns the manifest among seen with o's spec, nil when
// o is a different Application.
func sameApplication(seen []*manifest.Object, o *manifest.Object) *manifest.Object {
	for _, s := range seen {
		if reflect.DeepEqual(s.Body["spec"], o.Body["spec"]) {
			return s
		}
	}
	return nil
}

// markTwins names the file of each Application whose namespace and name
// another, different Application shares, with a note: Argo CD instances
// in different clusters can each hold one, and each is analyzed.
func (b *builder) markTwins(byKey map[string][]*manifest.Object) {
	b.twins = map[*manifest.Object]string{}
	for _, key := range slices.Sorted(mapsKeys(byKey)) {
		objs := byKey[key]
		if len(objs) < 2 {
			continue
		}
		files := map[string]int{}
		for _, o := range objs {
			files[o.Source.File]++
		}
		var where []string
		for _, o := range objs {
			tag := o.Source.File
			if files[tag] > 1 {
				tag = o.Source.String()
			}
			b.twins[o] = tag
			where = append(where, tag)
		}
		b.note(notice.Note, "%d different Applications are named %s (%s), one per Argo CD instance or environment; each is analyzed, and findings name it as %s@FILE",
			len(objs), key, strings.Join(where, ", "), key)
	}
}
