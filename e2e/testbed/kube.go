package testbed

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Kube is etcd and kube-apiserver (Kubernetes 1.37, built from their own
// modules: e2e/tools/kube) running on 127.0.0.1, and a client of it with
// cluster-admin rights (a static token in the system:masters group).
type Kube struct {
	URL        string // https://127.0.0.1:port
	Token      string
	Kubeconfig string // for the controllers (context namespace argocd)
	PKI        *PKI
	Config     *rest.Config
	Dynamic    dynamic.Interface
	Mapper     *restmapper.DeferredDiscoveryRESTMapper

	APIServer, Etcd *Proc
}

// FieldManager is the field manager of what the test bed applies itself.
const FieldManager = "routeguard-e2e"

// StartKube starts etcd and kube-apiserver (their process names prefixed
// with prefix, so one test bed can run two) and waits until /readyz says
// ready.
func StartKube(ctx context.Context, procs *Procs, prefix string) (*Kube, error) {
	kubeBin, err := Tool("kube", "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcdBin, err := Tool("kube", "etcd")
	if err != nil {
		return nil, err
	}
	pkiDir := filepath.Join(procs.Root, prefix+"pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return nil, err
	}
	pki, err := NewPKI(pkiDir)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcd, err := procs.Start(StartOptions{
		Name: prefix + "etcd",
		Path: etcdBin,
		Args: []string{
			"--data-dir", filepath.Join(procs.Root, prefix+"etcd", "data"),
			"--listen-client-url", etcdURL,
			"--listen-peer-url", "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		},
	})
	if err != nil {
		return nil, err
	}
	token := "routeguard-e2e-admin"
	tokens := filepath.Join(pkiDir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin-uid,system:masters\n"), 0o600); err != nil {
		return nil, err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(ports[2])
	api, err := procs.Start(StartOptions{
		Name: prefix + "kube-apiserver",
		Path: kubeBin,
		Args: []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(ports[2]),
			"--tls-cert-file=" + pki.CertFile,
			"--tls-private-key-file=" + pki.KeyFile,
			"--client-ca-file=" + pki.CAFile,
			"--token-auth-file=" + tokens,
			"--authorization-mode=RBAC",
			"--service-account-key-file=" + pki.SAPubFile,
			"--service-account-signing-key-file=" + pki.SAKeyFile,
			"--service-account-issuer=" + url,
			// No kubelet, no Endpoints: nothing routes to this range.
			"--service-cluster-ip-range=10.96.0.0/16",
			"--endpoint-reconciler-type=none",
			"--cert-dir=" + filepath.Join(procs.Root, prefix+"kube-apiserver", "certs"),
			"--profiling=false",
		},
	})
	if err != nil {
		return nil, err
	}
	k := &Kube{URL: url, Token: token, PKI: pki, APIServer: api, Etcd: etcd}
	if err := k.waitReady(ctx); err != nil {
		return nil, fmt.Errorf("%w\n--- kube-apiserver log:\n%s\n--- etcd log:\n%s", err, api.Tail(3000), etcd.Tail(2000))
	}
	k.Config = &rest.Config{
		Host:            url,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: pki.CAPEM},
		QPS:             200,
		Burst:           400,
	}
	if k.Dynamic, err = dynamic.NewForConfig(k.Config); err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(k.Config)
	if err != nil {
		return nil, err
	}
	k.Mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	k.Kubeconfig = filepath.Join(pkiDir, "kubeconfig")
	if err := os.WriteFile(k.Kubeconfig, []byte(k.kubeconfig("argocd")), 0o600); err != nil {
		return nil, err
	}
	return k, nil
}

func freePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for len(out) < n {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func (k *Kube) waitReady(ctx context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(k.PKI.CAPEM)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	return waitFor(ctx, 250*time.Millisecond, "kube-apiserver /readyz", func() (bool, error) {
		if done, err := k.APIServer.Exited(); done {
			return false, fmt.Errorf("kube-apiserver exited: %v", err)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, k.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+k.Token)
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Errorf("readyz: %s", resp.Status)
	})
}

func (k *Kube) kubeconfig(namespace string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: admin, namespace: %s}
current-context: e2e
`, k.URL, k.PKI.CAFile, k.Token, namespace)
}

// Resource maps an object's kind to its resource (re-reading discovery once
// when the kind is new: a CRD just installed).
func (k *Kube) Resource(gvk schema.GroupVersionKind) (dynamic.NamespaceableResourceInterface, *meta.RESTMapping, error) {
	m, err := k.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil && meta.IsNoMatchError(err) {
		k.Mapper.Reset()
		m, err = k.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, nil, err
	}
	return k.Dynamic.Resource(m.Resource), m, nil
}

// For returns the client of an object's resource, namespaced when its kind is.
func (k *Kube) For(obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	ri, m, err := k.Resource(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		return ri.Namespace(ns), nil
	}
	return ri, nil
}

// Apply server-side applies objects as the test bed (forcing conflicts).
func (k *Kube) Apply(ctx context.Context, objs ...*unstructured.Unstructured) error {
	for _, o := range objs {
		c, err := k.For(o)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
		force := true
		if _, err := c.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: FieldManager, Force: force}); err != nil {
			return fmt.Errorf("apply %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}

// ApplyYAML decodes a YAML stream and applies it.
func (k *Kube) ApplyYAML(ctx context.Context, data []byte) error {
	objs, err := DecodeYAML(data)
	if err != nil {
		return err
	}
	return k.Apply(ctx, objs...)
}

// Get reads one object; nil, nil when it does not exist.
func (k *Kube) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	ri, m, err := k.Resource(gvk)
	if err != nil {
		return nil, err
	}
	var c dynamic.ResourceInterface = ri
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		c = ri.Namespace(namespace)
	}
	o, err := c.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return o, err
}

// MergePatch patches an object (status with the "status" subresource).
func (k *Kube) MergePatch(ctx context.Context, obj *unstructured.Unstructured, patch []byte, subresource ...string) error {
	c, err := k.For(obj)
	if err != nil {
		return err
	}
	_, err = c.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}, subresource...)
	return err
}

// WaitEstablished waits until each named CRD has condition Established.
func (k *Kube) WaitEstablished(ctx context.Context, names ...string) error {
	gvk := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, n := range names {
		err := waitFor(ctx, 200*time.Millisecond, "CRD "+n+" Established", func() (bool, error) {
			o, err := k.Get(ctx, gvk, "", n)
			if err != nil || o == nil {
				return false, err
			}
			return ConditionStatus(o, "Established") == "True", nil
		})
		if err != nil {
			return err
		}
	}
	k.Mapper.Reset()
	return nil
}

// ConditionStatus returns status.conditions[type].status ("" when absent).
func ConditionStatus(o *unstructured.Unstructured, condType string) string {
	c := Condition(o, condType)
	if c == nil {
		return ""
	}
	s, _ := c["status"].(string)
	return s
}

// Condition returns status.conditions[type] (nil when absent).
func Condition(o *unstructured.Unstructured, condType string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == condType {
			return m
		}
	}
	return nil
}

// ErrNoKind says the API server serves no such kind (no CRD installed).
var ErrNoKind = errors.New("kind not served")

// DecodeYAML decodes a YAML (or JSON) stream of objects; empty documents are
// left out.
func DecodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("decode: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}
