package testbed

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BundledCRD is one CRD of routeguard's bundle (internal/crds/bundled).
type BundledCRD struct {
	Source  string `json:"source"`
	Channel string `json:"channel"`
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Plural  string `json:"plural"`
	File    string `json:"file"`
}

// ReadBundledCRDs reads the CRDs routeguard validates against: Gateway API's
// channel (standard or experimental), Istio's, Flux's and Argo CD's, from
// the checkout.
func ReadBundledCRDs(repoRoot, channel string) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(repoRoot, "internal", "crds", "bundled")
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, err
	}
	var idx struct {
		CRDs []BundledCRD `json:"crds"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("bundled CRD index: %w", err)
	}
	var out []*unstructured.Unstructured
	for _, e := range idx.CRDs {
		if e.Source == "gateway-api" && e.Channel != channel {
			continue
		}
		gz, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.File)+".gz"))
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.File, err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.File, err)
		}
		objs, err := DecodeYAML(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.File, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// InstallBundledCRDs applies routeguard's bundled CRDs and waits until the
// API server serves them.
func InstallBundledCRDs(ctx context.Context, k *Kube, repoRoot, channel string) error {
	crds, err := ReadBundledCRDs(repoRoot, channel)
	if err != nil {
		return err
	}
	return InstallCRDs(ctx, k, crds)
}

// InstallCRDs applies CRDs and waits until each is Established.
func InstallCRDs(ctx context.Context, k *Kube, crds []*unstructured.Unstructured) error {
	var names []string
	for _, c := range crds {
		if c.GetKind() != "CustomResourceDefinition" {
			continue
		}
		if err := k.Apply(ctx, c); err != nil {
			return err
		}
		names = append(names, c.GetName())
	}
	sort.Strings(names)
	return k.WaitEstablished(ctx, names...)
}

// ReadCRDDir reads every CRD of the YAML files in dir.
func ReadCRDDir(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := DecodeYAML(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}
