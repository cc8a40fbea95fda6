package flux

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/routeguard/routeguard/internal/manifest"
)

// strictFrom is the first Flux minor whose kustomize-controller (v1.9)
// turns the StrictPostBuildSubstitutions feature gate on by default.
var strictFrom = semver.MustParse("2.9.0")

// FluxVersion is what the tree says about the kustomize-controller it
// installs, as far as strict substitution goes.
type FluxVersion struct {
	// Known: the tree says it (else Strict is the Flux 2.9 default).
	Known  bool
	Strict bool
	// What names it, e.g. "kustomize-controller v1.8 (Flux v2.8.5)".
	What string
	// Source is where the tree says it.
	Source manifest.Source
}

// Describe says where the strictness comes from, for messages.
func (v FluxVersion) Describe() string {
	if !v.Known {
		return "no Flux version found in the tree"
	}
	return v.What + " from " + v.Source.String()
}

// fluxEvidence is one thing the tree says; the kinds rank: a feature gate
// wins over the bootstrap manifests, which win over flux-operator's.
type fluxEvidence struct {
	rank   int
	strict bool
	what   string
	src    manifest.Source
}

const (
	rankGate = iota
	rankBootstrap
	rankOperator
	// rankOperatorImage: a flux-operator image (what names its version),
	// no answer of its own.
	rankOperatorImage
)

// Limits of the version scan: the files it reads and the bytes in all.
const (
	maxVersionScanFiles = 20000
	maxVersionScanBytes = 512 << 20
)

var (
	gateArg        = regexp.MustCompile(`StrictPostBuildSubstitutions=(true|false)`)
	bootstrapLine  = regexp.MustCompile(`^#\s*Flux Version:\s*v?(\d+\.\d+\.\d+)`)
	controllerTag  = regexp.MustCompile(`fluxcd/kustomize-controller:v(\d+\.\d+\.\d+)`)
	operatorTag    = regexp.MustCompile(`controlplaneio-fluxcd/flux-operator:v(\d+\.\d+\.\d+)`)
	manifestsTag   = regexp.MustCompile(`/flux-operator-manifests(?::([^@\s"']+))?`)
	operatorMarker = [][]byte{[]byte("FluxInstance"), []byte("flux-instance"), []byte("flux-operator")}
)

// DetectFluxVersion reads the YAML files of the checkout at root (hidden
// files and directories left out, regular files of at most maxFile bytes,
// within the scan's limits; in lexical order, so the answer is the same
// every run) for the kustomize-controller the tree installs: (a) a
// StrictPostBuildSubstitutions feature gate on its arguments (a Deployment,
// a Kustomize patch, a FluxInstance's or flux-instance chart's patches); (b)
// flux bootstrap's gotk-components.yaml (its "# Flux Version:" header, the
// kustomize-controller image tag); (c) a FluxInstance or a HelmRelease of
// the flux-instance chart: its distribution.version range and the
// flux-operator-manifests artifact (else the flux-operator the tree
// installs), the newest Flux of those manifests the range allows.
func DetectFluxVersion(root string, maxFile int64) FluxVersion {
	if maxFile <= 0 {
		maxFile = manifest.DefaultMaxFileBytes
	}
	var ev []fluxEvidence
	var objs []*manifest.Object
	files, total := 0, int64(0)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		if (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(name, ".") || !d.Type().IsRegular() {
			return nil
		}
		if files++; files > maxVersionScanFiles || total > maxVersionScanBytes {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		data, err := readLimited(p, rel, maxFile)
		if err != nil {
			return nil
		}
		total += int64(len(data))
		ev = append(ev, lineEvidence(rel, data)...)
		if slices.ContainsFunc(operatorMarker, func(m []byte) bool { return bytes.Contains(data, m) }) {
			if o, err := manifest.Decode(rel, data); err == nil {
				objs = append(objs, o...)
			}
		}
		return nil
	})
	ev = append(ev, operatorEvidence(objs, ev)...)
	return decideFluxVersion(ev)
}

// lineEvidence finds the feature gate, the bootstrap header and the
// kustomize-controller image in one file's lines (comments left out but
// for the header).
func lineEvidence(rel string, data []byte) []fluxEvidence {
	if !bytes.Contains(data, []byte("StrictPostBuildSubstitutions")) && !bytes.Contains(data, []byte("Flux Version")) &&
		!bytes.Contains(data, []byte("kustomize-controller:v")) && !bytes.Contains(data, []byte("flux-operator:v")) {
		return nil
	}
	var out []fluxEvidence
	for i, line := range strings.Split(string(data), "\n") {
		src := manifest.Source{File: rel, Line: i + 1}
		trimmed := strings.TrimSpace(line)
		if m := bootstrapLine.FindStringSubmatch(trimmed); m != nil {
			if v, err := semver.NewVersion(m[1]); err == nil {
				out = append(out, fluxEvidence{rank: rankBootstrap, strict: !v.LessThan(strictFrom),
					what: fmt.Sprintf("kustomize-controller %s (Flux v%s, flux bootstrap's manifests)", controllerOf(v), v), src: src})
			}
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if m := gateArg.FindStringSubmatch(line); m != nil {
			out = append(out, fluxEvidence{rank: rankGate, strict: m[1] == "true",
				what: "the feature gate StrictPostBuildSubstitutions=" + m[1], src: src})
		}
		if m := controllerTag.FindStringSubmatch(line); m != nil {
			if v, err := semver.NewVersion(m[1]); err == nil {
				out = append(out, fluxEvidence{rank: rankBootstrap, strict: v.Minor() >= 9 || v.Major() > 1,
					what: fmt.Sprintf("kustomize-controller v%d.%d (its image)", v.Major(), v.Minor()), src: src})
			}
		}
		if m := operatorTag.FindStringSubmatch(line); m != nil {
			out = append(out, fluxEvidence{rank: rankOperatorImage, what: "v" + m[1], src: src})
		}
	}
	return out
}

// controllerOf names the kustomize-controller minor of a Flux version
// (Flux 2.N ships kustomize-controller v1.N).
func controllerOf(flux *semver.Version) string {
	if flux.Major() != 2 {
		return "of Flux v" + flux.String()
	}
	return fmt.Sprintf("v1.%d", flux.Minor())
}

// decideFluxVersion takes the evidence of the best rank; when it
// disagrees, strict (the error stays), naming the first strict one.
func decideFluxVersion(ev []fluxEvidence) FluxVersion {
	for rank := rankGate; rank <= rankOperator; rank++ {
		var first, firstStrict *fluxEvidence
		for i := range ev {
			if ev[i].rank != rank {
				continue
			}
			if first == nil {
				first = &ev[i]
			}
			if ev[i].strict && firstStrict == nil {
				firstStrict = &ev[i]
			}
		}
		if first == nil {
			continue
		}
		pick := first
		if firstStrict != nil {
			pick = firstStrict
		}
		return FluxVersion{Known: true, Strict: pick.strict, What: pick.what, Source: pick.src}
	}
	return FluxVersion{}
}
