// Package render turns an application directory of a GitOps repository into
// the objects the reconciler would apply, detecting the tool the way Argo CD
// does: Kustomize (kustomization.yaml), Helm (Chart.yaml) or a plain
// directory of YAML/JSON files.
//
// Every renderer reads only inside the repository root (symlinks included),
// runs nothing from the repository (no Kustomize exec or KRM plugins) and
// touches the network only when Options.AllowNetwork is set.
package render
