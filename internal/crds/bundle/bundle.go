// Package bundle builds the CRD bundle routeguard embeds (package crds) from
// the Go module cache: Gateway API's standard and experimental channels
// from sigs.k8s.io/gateway-api, Istio's CRDs from istio.io/istio, at the
// versions go.mod requires. The generator (go generate ./internal/crds)
// writes it; a test rebuilds it and fails when the embedded copy drifted.
package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/internal/crds"
)

// Module paths and where their CRDs live.
const (
	GatewayAPIModule = "sigs.k8s.io/gateway-api"
	IstioModule      = "istio.io/istio"
	istioCRDs        = "manifests/charts/base/files/crd-all.gen.yaml"
)

// Source says where the CRDs come from: a module and its version (and
// directory in the module cache).
type Source struct {
	Module  string
	Version string
	Dir     string
}

// Build reads the CRDs from the two modules and returns the bundle's files
// (uncompressed): one JSON file per CRD, upstream's without the
// descriptions of its schemas (compact.go), and the index.
func Build(gatewayAPI, istio Source) (map[string][]byte, error) {
	files := map[string][]byte{}
	idx := crds.Index{GatewayAPIVersion: gatewayAPI.Version, IstioVersion: istio.Version}
	for _, channel := range []string{"standard", "experimental"} {
		dir := filepath.Join(gatewayAPI.Dir, "config", "crd", channel)
		names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, name := range names {
			if err := add(files, &idx, "gateway-api", channel, name); err != nil {
				return nil, err
			}
		}
	}
	if err := add(files, &idx, "istio", "", filepath.Join(istio.Dir, filepath.FromSlash(istioCRDs))); err != nil {
		return nil, err
	}
	if len(idx.CRDs) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinitions found in %s and %s", gatewayAPI.Dir, istio.Dir)
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	files[crds.IndexFile] = append(data, '\n')
	return files, nil
}

// add splits file into documents and adds each CustomResourceDefinition.
func add(files map[string][]byte, idx *crds.Index, source, channel, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, doc := range splitDocuments(data) {
		var head struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Group string `yaml:"group"`
				Names struct {
					Kind   string `yaml:"kind"`
					Plural string `yaml:"plural"`
				} `yaml:"names"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if head.Kind != "CustomResourceDefinition" {
			continue // Gateway API ships a ValidatingAdmissionPolicy beside its CRDs
		}
		e := crds.Entry{Source: source, Channel: channel, Group: head.Spec.Group, Kind: head.Spec.Names.Kind, Plural: head.Spec.Names.Plural}
		e.File = strings.Join(nonEmpty(source, channel, e.Plural+"."+e.Group+".json"), "/")
		if _, dup := files[e.File]; dup || e.Kind == "" || e.Group == "" {
			return fmt.Errorf("%s: CustomResourceDefinition %q without kind or group, or twice", file, e.Plural+"."+e.Group)
		}
		compact, err := compactCRD(doc)
		if err != nil {
			return fmt.Errorf("%s: CustomResourceDefinition %s: %w", file, e.Plural+"."+e.Group, err)
		}
		files[e.File] = compact
		idx.CRDs = append(idx.CRDs, e)
	}
	return nil
}

// splitDocuments splits a YAML stream at "---" lines, the way kubectl
// does, dropping empty documents.
func splitDocuments(data []byte) [][]byte {
	var out [][]byte
	var cur bytes.Buffer
	flush := func() {
		if len(bytes.TrimSpace(cur.Bytes())) > 0 {
			out = append(out, bytes.Clone(cur.Bytes()))
		}
		cur.Reset()
	}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if t := bytes.TrimRight(line, " \r\n"); string(t) == "---" {
			flush()
			continue
		}
		cur.Write(line)
	}
	flush()
	return out
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
