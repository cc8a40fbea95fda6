package testbed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Flux is source-controller and kustomize-controller (v1.9, built from their
// own modules by e2e/tools/flux) running as processes against the API
// server, in namespace flux-system. helm-controller and
// notification-controller are not run: the module proxy serves neither.
//
// Flux has an API server of its own (etcd and kube-apiserver prefixed
// flux-), with its own stand-in gateway controller: the example repository
// is synced by Argo CD too, and two reconcilers owning the same objects in
// one cluster would undo each other's work.
type Flux struct {
	Namespace string
	Source    *Proc
	Kustomize *Proc
	Kube      *Kube
	Gateways  *StandInController
}

var (
	// KustomizationGVK is Flux's Kustomization.
	KustomizationGVK = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
	// GitRepositoryGVK is Flux's GitRepository.
	GitRepositoryGVK = schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}
)

// Flux starts (once) Flux's controllers and the services they need.
func (b *Bed) Flux(t testing.TB) *Flux {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.repoLocked(t)
	b.start(t, "flux", func() bool { return b.flux != nil }, func() error {
		k, err := StartKube(context.Background(), b.Procs, "flux-")
		if err != nil {
			return err
		}
		if err := InstallBundledCRDs(context.Background(), k, b.RepoRoot, "experimental"); err != nil {
			return err
		}
		f, err := b.startFlux(context.Background(), k)
		if err != nil {
			return err
		}
		f.Kube = k
		f.Gateways = StartStandInController(k)
		b.flux = f
		return nil
	})
	return b.flux
}

func (b *Bed) startFlux(ctx context.Context, kube *Kube) (*Flux, error) {
	srcBin, err := Tool("flux", "source-controller")
	if err != nil {
		return nil, err
	}
	ksBin, err := Tool("flux", "kustomize-controller")
	if err != nil {
		return nil, err
	}
	var crds []*unstructured.Unstructured
	for _, mod := range []string{"github.com/fluxcd/source-controller", "github.com/fluxcd/kustomize-controller"} {
		dir, err := ModuleDir("flux", mod)
		if err != nil {
			return nil, err
		}
		c, err := ReadCRDDir(filepath.Join(dir, "config", "crd", "bases"))
		if err != nil {
			return nil, err
		}
		crds = append(crds, c...)
	}
	// HelmRelease's CRD is routeguard's bundled one (controller-gen on
	// helm-controller's API module, installed with the bundle before Flux
	// starts): the module proxy serves no helm-controller module, and
	// without the kind kustomize-controller cannot apply a tree holding a
	// HelmRelease. No controller renders the release.
	if err := InstallCRDs(ctx, kube, crds); err != nil {
		return nil, err
	}
	if err := kube.Apply(ctx, object("v1", "Namespace", "", "flux-system", nil)); err != nil {
		return nil, err
	}
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	env := []string{"KUBECONFIG=" + kube.Kubeconfig, "RUNTIME_NAMESPACE=flux-system"}
	storage := "127.0.0.1:" + strconv.Itoa(ports[0])
	f := &Flux{Namespace: "flux-system"}
	storageDir := filepath.Join(b.Procs.Root, "source-controller", "data")
	if err := os.MkdirAll(storageDir, 0o700); err != nil {
		return nil, err
	}
	if f.Source, err = b.Procs.Start(StartOptions{
		Name: "source-controller", Path: srcBin,
		Args: []string{
			"--storage-path=" + storageDir,
			"--storage-addr=" + storage, "--storage-adv-addr=" + storage,
			"--metrics-addr=127.0.0.1:" + strconv.Itoa(ports[1]),
			"--health-addr=127.0.0.1:" + strconv.Itoa(ports[2]),
			"--enable-leader-election=false", "--log-level=info",
		},
		Env: env,
	}); err != nil {
		return nil, err
	}
	if f.Kustomize, err = b.Procs.Start(StartOptions{
		Name: "kustomize-controller", Path: ksBin,
		Args: []string{
			"--metrics-addr=127.0.0.1:" + strconv.Itoa(ports[3]),
			"--health-addr=127.0.0.1:" + strconv.Itoa(ports[4]),
			"--enable-leader-election=false", "--log-level=info",
		},
		Env: env,
	}); err != nil {
		return nil, err
	}
	// Ready when both answer their health probes.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err = waitFor(ctx, 250*time.Millisecond, "flux controllers /readyz", func() (bool, error) {
		for _, p := range []*Proc{f.Source, f.Kustomize} {
			if done, err := p.Exited(); done {
				return false, fmt.Errorf("%s exited: %v\n%s", p.Name, err, p.Tail(3000))
			}
		}
		for _, port := range []int{ports[2], ports[4]} {
			if _, err := httpGet("http://127.0.0.1:" + strconv.Itoa(port) + "/readyz"); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	return f, err
}
