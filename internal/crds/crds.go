// Package crds holds the CustomResourceDefinitions routeguard validates
// custom resources against when neither the app nor the operator supplies
// them: Gateway API's standard and experimental channels and Istio's CRDs,
// at the versions of sigs.k8s.io/gateway-api and istio.io/istio in go.mod,
// Flux's (kustomize-, source-, helm-, notification-controller, source-watcher)
// and Argo CD's (Application, ApplicationSet, AppProject),
// embedded gzipped (bundled/, written by `go generate ./internal/crds`;
// a test fails when it drifts from the module cache). It also reads the
// CRDs an operator names with --crd-dir.
package crds

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
)

//go:generate go run ./internal/gen

//go:embed bundled
var bundled embed.FS

// IndexFile is the index's name in the bundle.
const IndexFile = "index.json"

// Entry is one bundled CRD.
type Entry struct {
	Source  string `json:"source"`            // "gateway-api", "istio", "flux" or "argocd"
	Channel string `json:"channel,omitempty"` // Gateway API: "standard" or "experimental"
	Module  string `json:"module,omitempty"`  // Flux and Argo CD: the Go module it comes from
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Plural  string `json:"plural"`
	File    string `json:"file"` // path in the bundle, without .gz
}

// Index lists the bundled CRDs and the module versions they come from.
type Index struct {
	GatewayAPIVersion string `json:"gatewayAPIVersion"`
	IstioVersion      string `json:"istioVersion"`
	// Modules are the versions of the Flux and Argo CD modules.
	Modules map[string]string `json:"modules,omitempty"`
	CRDs    []Entry           `json:"crds"`
}

// Gateway API channels.
const (
	Standard     = "standard"
	Experimental = "experimental"
)

var index = sync.OnceValues(func() (*Index, error) {
	data, err := bundled.ReadFile("bundled/" + IndexFile)
	if err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("bundled CRD index: %w", err)
	}
	return &idx, nil
})

// Bundled returns the index of the bundled CRDs.
func Bundled() *Index {
	idx, err := index()
	if err != nil {
		panic(err) // the embedded bundle is part of the binary; a test reads it
	}
	return idx
}

// Find returns the bundled CRDs of group and kind (one per Gateway API
// channel, one for Istio's), in index order.
func (x *Index) Find(group, kind string) []Entry {
	var out []Entry
	for _, e := range x.CRDs {
		if e.Group == group && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// Origin describes where e comes from, for messages.
func (x *Index) Origin(e Entry) string {
	switch e.Source {
	case "gateway-api":
		return fmt.Sprintf("Gateway API %s CRD (%s channel, bundled)", x.GatewayAPIVersion, e.Channel)
	case "istio":
		return fmt.Sprintf("Istio CRD (istio.io/istio %s, bundled)", x.IstioVersion)
	case "flux":
		return fmt.Sprintf("Flux CRD (%s %s, bundled)", strings.TrimPrefix(strings.TrimSuffix(e.Module, "/api"), "github.com/fluxcd/"), x.Modules[e.Module])
	case "argocd":
		return fmt.Sprintf("Argo CD %s CRD (bundled)", x.Modules[e.Module])
	}
	return e.Source + " CRD (bundled)"
}

// Read returns the YAML of a bundled CRD.
func Read(e Entry) ([]byte, error) {
	f, err := bundled.Open("bundled/" + e.File + ".gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("bundled CRD %s: %w", e.File, err)
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return nil, fmt.Errorf("bundled CRD %s: %w", e.File, err)
	}
	return b.Bytes(), nil
}

// IndexJSON returns the embedded index as written.
func IndexJSON() ([]byte, error) { return bundled.ReadFile("bundled/" + IndexFile) }

// Files lists the files of the bundle (paths without "bundled/" and .gz).
func Files() ([]string, error) {
	var out []string
	err := fs.WalkDir(bundled, "bundled", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, "bundled/"), ".gz"))
		return nil
	})
	return out, err
}
