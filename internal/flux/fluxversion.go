package flux

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// Strictness says whether an unset postBuild variable is an error.
type Strictness int

// Strictness values. The zero value is StrictOff, what Flux before 2.9 does.
const (
	// StrictOff substitutes an empty string for an unset variable.
	StrictOff Strictness = iota
	// StrictOn makes an unset variable an error.
	StrictOn
	// StrictAuto decides from the Flux version the tree installs
	// (FluxVersion); strict when none is found, the default of every Flux
	// release since 2.9.
	StrictAuto
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
		data, err := readRegular(p, rel, maxFile)
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

// operatorEvidence reads FluxInstances and HelmReleases of the
// flux-instance chart.
func operatorEvidence(objs []*manifest.Object, lines []fluxEvidence) []fluxEvidence {
	ociURL := map[nsName]*manifest.Object{}
	for _, o := range objs {
		if o.Group() == SourceGroup && o.Kind == "OCIRepository" {
			ociURL[nsName{o.Namespace, o.Name}] = o
		}
	}
	chartOf := func(hr *manifest.Object) (name, version string, src manifest.Source) {
		if c := field.String(hr.Body, "spec", "chart", "spec", "chart"); c != "" {
			return c, field.String(hr.Body, "spec", "chart", "spec", "version"), hr.FieldSource("spec.chart.spec.version")
		}
		ref := field.Map(hr.Body, "spec", "chartRef")
		if field.String(ref, "kind") != "OCIRepository" {
			return "", "", manifest.Source{}
		}
		ns := field.String(ref, "namespace")
		if ns == "" {
			ns = hr.Namespace
		}
		repo := ociURL[nsName{ns, field.String(ref, "name")}]
		if repo == nil {
			// A namespace left to the cluster (kustomization.yaml's
			// namespace): match by name.
			for k, o := range ociURL {
				if k.name == field.String(ref, "name") {
					repo = o
				}
			}
		}
		if repo == nil {
			return "", "", manifest.Source{}
		}
		url := strings.TrimSuffix(field.String(repo.Body, "spec", "url"), "/")
		return url[strings.LastIndex(url, "/")+1:], field.String(repo.Body, "spec", "ref", "tag"), repo.FieldSource("spec.ref.tag")
	}
	// The flux-operator the tree installs: its chart or its image.
	var operator string
	var operatorSrc manifest.Source
	for _, o := range objs {
		if o.Group() == HelmGroup && o.Kind == "HelmRelease" {
			if name, version, src := chartOf(o); name == "flux-operator" && version != "" && operator == "" {
				operator, operatorSrc = "v"+strings.TrimPrefix(version, "v"), src
			}
		}
	}
	if operator == "" {
		for _, e := range lines {
			if e.rank == rankOperatorImage {
				operator, operatorSrc = e.what, e.src
				break
			}
		}
	}
	var out []fluxEvidence
	for _, o := range objs {
		var dist map[string]any
		var prefix string
		switch {
		case o.Group() == "fluxcd.controlplane.io" && o.Kind == "FluxInstance":
			dist, prefix = field.Map(o.Body, "spec", "distribution"), "spec.distribution"
		case o.Group() == HelmGroup && o.Kind == "HelmRelease":
			if name, _, _ := chartOf(o); name != "flux-instance" {
				continue
			}
			dist, prefix = field.Map(o.Body, "spec", "values", "instance", "distribution"), "spec.values.instance.distribution"
		default:
			continue
		}
		defaulted := map[string]bool{}
		if o.Kind == "HelmRelease" {
			// The flux-instance chart's defaults (its values.yaml).
			dist = maps.Clone(dist)
			if dist == nil {
				dist = map[string]any{}
			}
			if field.String(dist, "version") == "" {
				dist["version"] = "2.x"
				defaulted["version"] = true
			}
			if field.String(dist, "artifact") == "" {
				dist["artifact"] = "oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest"
				defaulted["artifact"] = true
			}
		}
		if e, ok := instanceEvidence(o, dist, prefix, defaulted, operator, operatorSrc); ok {
			out = append(out, e)
		}
	}
	return out
}

// instanceEvidence decides one FluxInstance's (or flux-instance chart's)
// distribution: the newest Flux its artifact (else the operator's own
// manifests) holds within its version range.
//
// defaulted names the fields the flux-instance chart's defaults filled in.
func instanceEvidence(o *manifest.Object, dist map[string]any, prefix string, defaulted map[string]bool, operator string, operatorSrc manifest.Source) (fluxEvidence, bool) {
	rangeText := field.String(dist, "version")
	if rangeText == "" {
		return fluxEvidence{}, false
	}
	rangeSrc := o.FieldSource(prefix + ".version")
	c, err := semver.NewConstraint(rangeText)
	if err != nil {
		return fluxEvidence{}, false
	}
	within := fmt.Sprintf("%q", rangeText)
	if defaulted["version"] {
		within += ", the flux-instance chart's default"
	}
	admits := func(vs ...string) bool {
		return slices.ContainsFunc(vs, func(v string) bool { return c.Check(semver.MustParse(v)) })
	}
	// A range below 2.9 (2.8.x, ~2.7) is not strict whatever the
	// artifact; one from 2.9 on (2.9.x, >=2.9) is.
	switch {
	case !admits("2.9.0", "2.9.99", "2.10.0", "2.99.0", "3.0.0"):
		return fluxEvidence{rank: rankOperator, what: fmt.Sprintf("kustomize-controller before v1.9 (Flux %s, distribution.version)", within), src: rangeSrc}, true
	case !admits("2.0.0", "2.7.99", "2.8.0", "2.8.99"):
		return fluxEvidence{rank: rankOperator, strict: true, what: fmt.Sprintf("kustomize-controller v1.9 or later (Flux %s, distribution.version)", within), src: rangeSrc}, true
	}
	artifact := field.String(dist, "artifact")
	shippedBy, src := operator, operatorSrc
	if artifact != "" {
		m := manifestsTag.FindStringSubmatch(artifact)
		if m == nil || (m[1] == "" && strings.Contains(artifact, "@")) {
			return fluxEvidence{}, false
		}
		src = o.FieldSource(prefix + ".artifact")
		if m[1] == "" || m[1] == "latest" {
			latest := "flux-operator-manifests:latest"
			if defaulted["artifact"] {
				latest += ", the flux-instance chart's default"
			}
			return fluxEvidence{rank: rankOperator, strict: true, what: fmt.Sprintf("kustomize-controller v1.9 or later (Flux %s from %s)", within, latest), src: src}, true
		}
		shippedBy = "v" + strings.TrimPrefix(m[1], "v")
	}
	if shippedBy == "" {
		return fluxEvidence{}, false
	}
	shipped, ok := fluxOperatorShips[shippedBy]
	if !ok {
		return fluxEvidence{}, false
	}
	for _, s := range strings.Fields(shipped) {
		v := semver.MustParse(s)
		if c.Check(v) {
			what := fmt.Sprintf("kustomize-controller %s (Flux v%s, the newest of flux-operator %s's manifests within %s)", controllerOf(v), v, shippedBy, within)
			return fluxEvidence{rank: rankOperator, strict: !v.LessThan(strictFrom), what: what, src: src}, true
		}
	}
	return fluxEvidence{}, false
}

// lenient: the tree's Flux substitutes an empty string for an unset
// variable (StrictAuto and a version before 2.9, or the gate off).
func (b *nodeRender) lenient() bool {
	return b.opts.Strict == StrictAuto && b.fluxVersion.Known && !b.fluxVersion.Strict
}

// strictness says, for a strict-mode error, why routeguard is strict.
func (b *nodeRender) strictness() string {
	if b.opts.Strict != StrictAuto {
		return ""
	}
	if b.fluxVersion.Known {
		return "strict, as the tree's Flux is: " + b.fluxVersion.Describe()
	}
	return "no Flux version found in the tree, so strict, the default of kustomize-controller since Flux 2.9; if the cluster runs an older Flux or turns the gate off, pass --strict=false, or say it in the tree (kustomize-controller's --feature-gates=StrictPostBuildSubstitutions=false)"
}

// lenientNotice names the variables a Kustomization leaves unset, which the
// tree's Flux substitutes with an empty string.
func (b *nodeRender) lenientNotice(n *Node, set *manifest.Set, unset []string, defined map[string]bool, values map[string]string) notice.Notice {
	names := map[string]bool{}
	for _, v := range unset {
		names[v] = true
	}
	for _, v := range variablesWithoutDefault(set) {
		if !defined[v] && values[v] == "" {
			names[v] = true
		}
	}
	return notice.Notef("%s: postBuild variables not set: %s; %s substitutes an empty string (strict from Flux 2.9: set them, give a default ${name:=value}, or escape $${name})",
		n.describe(), strings.Join(slices.Sorted(maps.Keys(names)), ", "), b.fluxVersion.Describe())
}
