package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Versions routeguard's CRD bundle pins beyond what go.mod requires.
const (
	// ArgoCDModule and ArgoCDVersion: Argo CD's CRDs (manifests/crds of the
	// module). The main module cannot depend on Argo CD (docs: DESIGN);
	// this is the release compat/argocd builds against, which a test there
	// checks.
	ArgoCDModule  = "github.com/argoproj/argo-cd/v3"
	ArgoCDVersion = "v3.5.7"
	// SourceControllerVersion: source-controller's CRDs, from its module's
	// config/crd/bases; the release of Flux 2.9 beside kustomize-controller
	// v1.9.6 (routeguard has no dependency on source-controller's API).
	SourceControllerVersion = "v1.9.6"
	// ControllerGenVersion generates the CRDs of the Flux API modules whose
	// controller modules the Go module proxy does not serve, as Flux
	// generates them (kustomize-controller v1.9.6's Makefile pins it).
	ControllerGenVersion = "v0.21.0"
)

// fluxRoots are the Flux controllers whose own config/crd/bases is read:
// module, and how its version is found (the go.mod requirement of the api
// module, or a constant).
var fluxRoots = []struct{ module, versionOf, version string }{
	{"github.com/fluxcd/kustomize-controller", "github.com/fluxcd/kustomize-controller/api", ""},
	{"github.com/fluxcd/source-controller", "", SourceControllerVersion},
}

// fluxAPIs are the Flux API modules (in go.mod) whose CRDs controller-gen
// writes from their types.
var fluxAPIs = []string{
	"github.com/fluxcd/helm-controller/api",
	"github.com/fluxcd/notification-controller/api",
	"github.com/fluxcd/source-watcher/api/v2",
}

// Sources are every module the bundle is built from.
type Sources struct {
	GatewayAPI, Istio Source
	// Flux: each with CRDDir holding its CustomResourceDefinition files.
	Flux   []Source
	ArgoCD Source
	// cleanup removes the directory controller-gen wrote into.
	cleanup func()
}

// Close removes what Locate wrote.
func (s Sources) Close() {
	if s.cleanup != nil {
		s.cleanup()
	}
}

// Locate finds the modules' versions and their directories in the module
// cache, downloading them through the module proxy when they are not there
// yet, and runs controller-gen for the Flux API modules. dir is a directory
// of the main module.
func Locate(dir string) (Sources, error) {
	var s Sources
	gw, err := required(dir, GatewayAPIModule)
	if err != nil {
		return s, err
	}
	istio, err := required(dir, IstioModule)
	if err != nil {
		return s, err
	}
	s.GatewayAPI, s.Istio = gw, istio
	for _, r := range fluxRoots {
		version := r.version
		if r.versionOf != "" {
			api, err := required(dir, r.versionOf)
			if err != nil {
				return s, err
			}
			version = api.Version
		}
		src, err := download(dir, r.module, version)
		if err != nil {
			return s, err
		}
		src.CRDDir = filepath.Join(src.Dir, "config", "crd", "bases")
		s.Flux = append(s.Flux, src)
	}
	tmp, err := os.MkdirTemp("", "routeguard-crds-")
	if err != nil {
		return s, err
	}
	s.cleanup = func() { os.RemoveAll(tmp) }
	for _, mod := range fluxAPIs {
		src, err := required(dir, mod)
		if err != nil {
			s.Close()
			return s, err
		}
		src.CRDDir = filepath.Join(tmp, strings.ReplaceAll(mod, "/", "_"))
		src.Generated = "controller-gen " + ControllerGenVersion
		if out, err := goCmd(dir, "run", "sigs.k8s.io/controller-tools/cmd/controller-gen@"+ControllerGenVersion,
			"crd", "paths="+mod+"/...", "output:crd:dir="+src.CRDDir); err != nil {
			s.Close()
			return s, fmt.Errorf("controller-gen for %s: %w: %s", mod, err, out)
		}
		s.Flux = append(s.Flux, src)
	}
	argo, err := download(dir, ArgoCDModule, ArgoCDVersion)
	if err != nil {
		s.Close()
		return s, err
	}
	argo.CRDDir = filepath.Join(argo.Dir, "manifests", "crds")
	s.ArgoCD = argo
	return s, nil
}

// required is a module of the main module's build list.
func required(dir, mod string) (Source, error) {
	if out, err := goCmd(dir, "mod", "download", mod); err != nil {
		return Source{}, fmt.Errorf("go mod download %s: %w: %s", mod, err, out)
	}
	out, err := goCmd(dir, "list", "-m", "-f", "{{.Version}} {{.Dir}}", mod)
	if err != nil {
		return Source{}, fmt.Errorf("go list -m %s: %w: %s", mod, err, out)
	}
	version, d, ok := strings.Cut(strings.TrimSpace(out), " ")
	if !ok || d == "" {
		return Source{}, fmt.Errorf("module %s is not in the module cache (go list printed %q)", mod, out)
	}
	return Source{Module: mod, Version: version, Dir: d}, nil
}

// download is a module outside the build list, at version.
func download(dir, mod, version string) (Source, error) {
	out, err := goCmd(dir, "mod", "download", "-json", mod+"@"+version)
	if err != nil {
		return Source{}, fmt.Errorf("go mod download %s@%s: %w: %s", mod, version, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Dir == "" {
		return Source{}, fmt.Errorf("go mod download %s@%s: %s%s", mod, version, info.Error, out)
	}
	return Source{Module: mod, Version: version, Dir: info.Dir}, nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}
