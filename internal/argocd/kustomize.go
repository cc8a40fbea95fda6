package argocd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/kustomize/v5/commands/edit"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// renderKustomize renders a Kustomize source. Argo CD applies the
// source's kustomize options by running `kustomize edit` in its copy of
// the repository before `kustomize build`; routeguard runs the same
// kustomize edit commands (Kustomize's own code) on the kustomization in
// memory, in Argo CD's order: namePrefix, nameSuffix, images, replicas,
// commonLabels, commonAnnotations, namespace, patches, components.
//
// A helmCharts chart that is not in the repository is left out (Argo CD's
// repo-server would pull it; routeguard never does) and returned, and so is
// what the kustomizations name remotely when the network is not allowed,
// so that the rest of the app is still checked and what they deploy is
// "cannot check".
func (b *sourceRenderer) renderKustomize(ctx context.Context, app *Application, src Source, appDir string, env buildEnv) (*manifest.Set, []render.MissingChart, []render.RemoteRef, error) {
	opts := b.baseOptions(ctx, app, appDir)
	opts.SkipMissingCharts, opts.SkipRemote = true, true
	opts.Helm.KubeVersion = b.opts.KubeVersion
	opts.Helm.APIVersions = b.opts.APIVersions
	if k := src.Kustomize; k != nil {
		opts.Helm.KubeVersion = cmp.Or(k.KubeVersion, opts.Helm.KubeVersion)
		if len(k.APIVersions) > 0 {
			opts.Helm.APIVersions = k.APIVersions
		}
		if k.IgnoreMissingComponents {
			for _, c := range k.Components {
				b.observe(ctx, confine.ObservedStat, filepath.Join(appDir, c))
				b.observe(ctx, confine.ObservedTarget, filepath.Join(appDir, c))
			}
		}
		edits, err := kustomizeEdits(k, env, b.repo, appDir)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(edits) > 0 {
			opts.Kustomize.Edit = func(fsys filesys.FileSystem) error {
				for _, e := range edits {
					if err := e(fsys); err != nil {
						return err
					}
				}
				return nil
			}
		}
	}
	res, err := render.Render(ctx, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	return res.Set, res.MissingCharts, res.Remote, nil
}

type kustomizeEdit func(fsys filesys.FileSystem) error

// kustomizeEdits lists the edits Argo CD's kustomize.Build makes.
func kustomizeEdits(k *Kustomize, env buildEnv, repo *thisRepo, appDir string) ([]kustomizeEdit, error) {
	var edits []kustomizeEdit
	run := func(args ...string) {
		edits = append(edits, func(fsys filesys.FileSystem) error { return runEdit(fsys, args) })
	}
	if k.NamePrefix != "" {
		run("set", "nameprefix", "--", k.NamePrefix)
	}
	if k.NameSuffix != "" {
		run("set", "namesuffix", "--", k.NameSuffix)
	}
	if len(k.Images) > 0 {
		args := []string{"set", "image"}
		for _, img := range k.Images {
			args = append(args, env.Envsubst(img))
		}
		run(args...)
	}
	if len(k.Replicas) > 0 {
		args := []string{"set", "replicas"}
		for _, r := range k.Replicas {
			n, err := replicaCount(r)
			if err != nil {
				return nil, err
			}
			args = append(args, fmt.Sprintf("%s=%d", r.Name, n))
		}
		run(args...)
	}
	if len(k.CommonLabels) > 0 {
		args := []string{"add", "label"}
		if k.ForceCommonLabels {
			args = append(args, "--force")
		}
		if k.LabelWithoutSelector {
			args = append(args, "--without-selector")
		}
		if k.LabelIncludeTemplates {
			args = append(args, "--include-templates")
		}
		labels := map[string]string{}
		for n, v := range k.CommonLabels {
			labels[n] = env.Envsubst(v)
		}
		run(append(args, editAddArgs(labels)...)...)
	}
	if len(k.CommonAnnotations) > 0 {
		args := []string{"add", "annotation"}
		if k.ForceCommonAnnotations {
			args = append(args, "--force")
		}
		ann := k.CommonAnnotations
		if k.CommonAnnotationsEnvsubst {
			ann = map[string]string{}
			for n, v := range k.CommonAnnotations {
				ann[n] = env.Envsubst(v)
			}
		}
		run(append(args, editAddArgs(ann)...)...)
	}
	if k.Namespace != "" {
		run("set", "namespace", "--", k.Namespace)
	}
	if len(k.Patches) > 0 {
		patches := k.Patches
		edits = append(edits, func(fsys filesys.FileSystem) error { return addPatches(fsys, patches) })
	}
	if len(k.Components) > 0 {
		found := k.Components
		if k.IgnoreMissingComponents {
			found = nil
			for _, c := range k.Components {
				if repo.cr.Exists(filepath.Join(appDir, c)) {
					if _, err := repo.resolve(filepath.Join(appDir, c)); err == nil {
						found = append(found, c)
					}
				}
			}
		}
		for _, c := range found {
			if isRemote(c) {
				return nil, fmt.Errorf("kustomize.components: %q is remote; routeguard renders offline and does not fetch components", c)
			}
		}
		if len(found) > 0 {
			run(append([]string{"add", "component"}, found...)...)
		}
	}
	return edits, nil
}

// editAddArgs is Argo CD's mapToEditAddArgs for kustomize >= 3.8.5:
// one key:value argument per entry (sorted here; Argo CD's map order is
// random and kustomize adds them all either way).
func editAddArgs(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+":"+m[k])
	}
	return out
}

func replicaCount(r Replica) (int, error) {
	var n int
	if err := json.Unmarshal(r.Count, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(r.Count, &s); err == nil {
		if n, err := strconv.Atoi(s); err == nil {
			return n, nil
		}
		return 0, fmt.Errorf("expected integer value for count. Received: %s", s)
	}
	return 0, fmt.Errorf("kustomize.replicas %s: count must be a number", r.Name)
}

func isRemote(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "git@") || strings.HasPrefix(s, "github.com/")
}

// runEdit runs `kustomize edit <args>` (Kustomize's own command) on fsys,
// whose relative paths start at the app directory.
func runEdit(fsys filesys.FileSystem, args []string) error {
	pvd := provider.NewDefaultDepProvider()
	var out bytes.Buffer
	cmd := edit.NewCmdEdit(fsys, pvd.GetFieldValidator(), pvd.GetResourceFactory(), &out)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	if err := cmd.Execute(); err != nil {
		return fmt.Errorf("kustomize edit %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// addPatches is what Argo CD does for kustomize.patches (there is no
// kustomize edit command for them): the kustomization is read as YAML, the
// patches appended to its patches list, and it is written back.
func addPatches(fsys filesys.FileSystem, patches []any) error {
	name := ""
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if fsys.Exists(n) {
			name = n
			break
		}
	}
	if name == "" {
		return errors.New("kustomization file not found in the path")
	}
	data, err := fsys.ReadFile(name)
	if err != nil {
		return fmt.Errorf("failed to load kustomization.yaml: %w", err)
	}
	var k any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("failed to unmarshal kustomization.yaml: %w", err)
	}
	m, ok := k.(map[string]any)
	if !ok {
		return fmt.Errorf("expected kustomization.yaml to be type map[string]any, but got %T", k)
	}
	if existing, ok := m["patches"]; ok {
		list, ok := existing.([]any)
		if !ok {
			return fmt.Errorf("expected 'patches' field in kustomization.yaml to be []any, but got %T", existing)
		}
		m["patches"] = append(list, patches...)
	} else {
		m["patches"] = patches
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Errorf("failed to marshal kustomization.yaml after adding patches: %w", err)
	}
	return fsys.WriteFile(name, out)
}
