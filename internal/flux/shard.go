package flux

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/shard"
)

// A shard of flux diff (--shard I/N) builds the tree as flux diff does,
// but renders only the HelmReleases its shard holds and builds a
// Kustomization of another shard only when it may produce Flux objects
// (a file under its spec.path mentions fluxcd, or reaches out of it with
// ../): the tree is discovered by building, so every shard builds the
// part that discovers it. Every build of a node the shard holds is
// carried (CarriedBuild) with what it read of the cluster (inputsOf).
//
// The merge (Options.Carried) builds the tree again and takes a node from
// the shards when a shard built it from the same object with the same
// cluster inputs at the same revision: what a build reads is its object,
// the checkout and inputsOf, so the node is what building it would give,
// and the merged tree is the unsharded tree. A node no shard carried
// with those inputs (a shard left out what it reads, or did not discover
// it) is built by the merge: the review stays the unsharded one, it only
// costs more. That is the reason for this design over one that trusts a
// shard's view of the tree: a wrong guess of which nodes produce others
// costs time, never a wrong review.

// ShardPlan is Options.Shard: the shard the build is of, and what it
// carries.
type ShardPlan struct {
	Spec shard.Spec

	mu     sync.Mutex
	builds []CarriedBuild
	left   map[string]bool
	err    error
	scans  sync.Map // dir -> bool: whether it may produce Flux objects
}

// NodeShardID is the shard identity of the node with object o.
func NodeShardID(o *manifest.Object) shard.ID {
	return shard.ID{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// Builds are the builds of held nodes, in the order they finished (the
// error of one that could not be carried).
func (p *ShardPlan) Builds() ([]CarriedBuild, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.builds), p.err
}

// LeftOut are the identities of the nodes of other shards left out.
func (p *ShardPlan) LeftOut() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.left))
	for k := range p.left {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// leaves reports whether the shard leaves n out (marking it so).
func (b *builder) leaves(n *Node) bool {
	p := b.opts.Shard
	if p == nil || n.synthetic || n.Parent == nil || p.Spec.Holds(NodeShardID(n.Object)) {
		return false
	}
	switch {
	case n.IsResourceSet():
		return false // it makes Flux objects, and templating it is cheap
	case n.IsKustomization() && b.mayProduceNodes(n):
		return false
	}
	n.Status, n.Objects = Built, nil
	p.mu.Lock()
	if p.left == nil {
		p.left = map[string]bool{}
	}
	p.left[NodeShardID(n.Object).String()] = true
	p.mu.Unlock()
	return true
}

// record carries the build of n when the shard holds it.
func (b *builder) record(n *Node) {
	p := b.opts.Shard
	if p == nil || n.synthetic || !p.Spec.Holds(NodeShardID(n.Object)) {
		return
	}
	c, err := carryNode(n, b.root)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && p.err == nil {
		p.err = err
	}
	p.builds = append(p.builds, c)
}

// maxShardScan bounds the files the scan of a Kustomization's path reads.
const maxShardScan = 5000

// mayProduceNodes reports whether the Kustomization n may apply Flux
// objects (Kustomizations, HelmReleases, sources): a file under its
// spec.path mentions fluxcd or ../ (a base elsewhere), or the path cannot
// be scanned.
func (b *builder) mayProduceNodes(n *Node) bool {
	ks, _, err := decodeKustomization(n.Object)
	if err != nil {
		return true
	}
	ref := SourceKey{Kind: ks.Spec.SourceRef.Kind, Namespace: ks.Spec.SourceRef.Namespace, Name: ks.Spec.SourceRef.Name}
	if ref.Namespace == "" {
		ref.Namespace = ks.Namespace
	}
	o, err := b.originOf(ref)
	if err != nil {
		return true
	}
	dir, err := o.localDir("spec.path", ks.Spec.Path)
	if err != nil {
		return true
	}
	found, ok := b.opts.Shard.scans.Load(dir)
	if !ok {
		found, _ = b.opts.Shard.scans.LoadOrStore(dir, mentionsFlux(o.dir, dir, b.maxFileBytes))
	}
	return found.(bool)
}

// mentionsFlux reports whether a file under dir (in the source at root)
// mentions fluxcd or ../; a directory of more than maxShardScan files, or
// one that cannot be read, counts as mentioning it.
func mentionsFlux(root, dir string, max int64) bool {
	if max <= 0 {
		max = manifest.DefaultMaxFileBytes
	}
	return shard.Mentions(root, dir, shard.ScanOptions{MaxFiles: maxShardScan, MaxFileBytes: max, Unreadable: true}, "fluxcd", "../")
}

// CarriedBuild is one build of a node, in a form that can leave the
// process: the node's identity, its object's digest, what it read of the
// cluster, and what the build made of it.
type CarriedBuild struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Namespace  string          `json:"namespace,omitempty"`
	Name       string          `json:"name"`
	Source     manifest.Source `json:"source"`
	// Digest is the SHA-256 of the node's object's body (JSON).
	Digest string `json:"digest"`
	// Inputs are what the build read of the cluster (inputsOf).
	Inputs         string                     `json:"inputs"`
	Status         string                     `json:"status"`
	Reason         string                     `json:"reason,omitempty"`
	SkipKind       string                     `json:"skipKind,omitempty"`
	MissingSource  *manifest.Key              `json:"missingSource,omitempty"`
	Objects        []manifest.CarriedObject   `json:"objects,omitempty"`
	Dir            string                     `json:"dir,omitempty"`
	Unrendered     []analysis.UnrenderedScope `json:"unrendered,omitempty"`
	Partial        []string                   `json:"partial,omitempty"`
	RoutingFiles   []string                   `json:"routingFiles,omitempty"`
	Findings       []analysis.CarriedFinding  `json:"findings,omitempty"`
	Notices        []notice.Notice            `json:"notices,omitempty"`
	ClusterSources []CarriedClusterSource     `json:"clusterSources,omitempty"`
	MutatedBy      string                     `json:"mutatedBy,omitempty"`
	Reused         bool                       `json:"reused,omitempty"`
}

// ID is the build's node's shard identity.
func (c CarriedBuild) ID() shard.ID {
	return shard.ID{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}
}

// CarriedClusterSource is a clusterSource.
type CarriedClusterSource struct {
	Kind         string   `json:"kind"`
	Namespace    string   `json:"namespace"`
	Name         string   `json:"name"`
	Why          string   `json:"why"`
	Placeholders []string `json:"placeholders,omitempty"`
	Values       bool     `json:"values,omitempty"`
}

func bodyDigest(body map[string]any) string {
	data, err := json.Marshal(body)
	if err != nil {
		return "unencodable"
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

var statuses = map[string]Status{"built": Built, "skipped": Skipped, "failed": Failed}

func tokenizeAll(s []string, root string) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = manifest.Tokenize(x, root)
	}
	return out
}

func untokenizeAll(s []string, root string) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = manifest.Untokenize(x, root)
	}
	return out
}

// carryNode is the carried form of n's build in the checkout at root.
func carryNode(n *Node, root string) (CarriedBuild, error) {
	t := func(s string) string { return manifest.Tokenize(s, root) }
	o := n.Object
	c := CarriedBuild{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Source: o.Source,
		Digest: bodyDigest(o.Body), Inputs: t(n.inputs), Status: n.Status.String(), Reason: t(n.Reason), SkipKind: n.SkipKind,
		MissingSource: n.MissingSource, Dir: t(n.Dir), Partial: tokenizeAll(n.Partial, root), RoutingFiles: tokenizeAll(n.RoutingFiles, root),
		MutatedBy: n.mutatedBy, Reused: n.Reused}
	c.Source.File = t(c.Source.File)
	for _, x := range n.Objects {
		co, err := manifest.Carry(x, root)
		if err != nil {
			return c, fmt.Errorf("%s: %w", n, err)
		}
		c.Objects = append(c.Objects, co)
	}
	for _, u := range n.Unrendered {
		u.Reason = t(u.Reason)
		u.Paths = tokenizeAll(u.Paths, root)
		c.Unrendered = append(c.Unrendered, u)
	}
	for _, f := range n.findings {
		cf, err := f.Carry(root)
		if err != nil {
			return c, fmt.Errorf("%s: %w", n, err)
		}
		c.Findings = append(c.Findings, cf)
	}
	for _, x := range n.notices {
		c.Notices = append(c.Notices, notice.Notice{Level: x.Level, Text: t(x.Text)})
	}
	for _, s := range n.clusterSources {
		c.ClusterSources = append(c.ClusterSources, CarriedClusterSource{Kind: s.Kind, Namespace: s.Key.ns, Name: s.Key.name, Why: t(s.Why), Placeholders: s.Placeholders, Values: s.values})
	}
	return c, nil
}

// Check reads c as the merge will, for a file's errors up front.
func (c CarriedBuild) Check() error {
	_, err := c.node("")
	return err
}

// node is the node c carries, under the checkout root (Object unset).
func (c CarriedBuild) node(root string) (*Node, error) {
	u := func(s string) string { return manifest.Untokenize(s, root) }
	st, ok := statuses[c.Status]
	if !ok {
		return nil, fmt.Errorf("%s: status %q", c.ID(), c.Status)
	}
	h := &Node{Status: st, Reason: u(c.Reason), SkipKind: c.SkipKind, MissingSource: c.MissingSource, Dir: u(c.Dir),
		Partial: untokenizeAll(c.Partial, root), RoutingFiles: untokenizeAll(c.RoutingFiles, root), mutatedBy: c.MutatedBy,
		Reused: c.Reused, inputs: u(c.Inputs)}
	for i, co := range c.Objects {
		o, err := co.Object(root)
		if err != nil {
			return nil, fmt.Errorf("%s, object %d: %w", c.ID(), i+1, err)
		}
		h.Objects = append(h.Objects, o)
	}
	for _, x := range c.Unrendered {
		x.Reason = u(x.Reason)
		x.Paths = untokenizeAll(x.Paths, root)
		h.Unrendered = append(h.Unrendered, x)
	}
	for _, cf := range c.Findings {
		f, err := cf.Finding(root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.ID(), err)
		}
		h.findings = append(h.findings, f)
	}
	for _, x := range c.Notices {
		h.notices = append(h.notices, notice.Notice{Level: x.Level, Text: u(x.Text)})
	}
	for _, s := range c.ClusterSources {
		h.clusterSources = append(h.clusterSources, &clusterSource{Kind: s.Kind, Key: nsName{s.Namespace, s.Name}, Why: u(s.Why), Placeholders: s.Placeholders, values: s.Values})
	}
	return h, nil
}

// Carried is Options.Carried: the builds of every shard of a review at
// one revision, which the merge's build takes instead of building.
type Carried struct {
	byID map[shard.ID][]CarriedBuild

	mu           sync.Mutex
	taken, built int
	err          error
}

// NewCarried indexes builds (of one revision).
func NewCarried(builds []CarriedBuild) *Carried {
	c := &Carried{byID: map[shard.ID][]CarriedBuild{}}
	for _, b := range builds {
		c.byID[b.ID()] = append(c.byID[b.ID()], b)
	}
	return c
}

// Counts are how many nodes the merge took from the shards and built.
func (c *Carried) Counts() (taken, built int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.taken, c.built, c.err
}

// of returns the carried node to take for n (its inputs computed), or
// nil to build it.
func (c *Carried) of(n *Node, root string) *Node {
	if c == nil {
		return nil
	}
	var found *CarriedBuild
	if n.inputs != "" && !n.synthetic {
		digest := bodyDigest(n.Object.Body)
		for i, cb := range c.byID[NodeShardID(n.Object)] {
			src := cb.Source
			src.File = manifest.Untokenize(src.File, root)
			if cb.APIVersion == n.Object.APIVersion && cb.Digest == digest && src == n.Object.Source && manifest.Untokenize(cb.Inputs, root) == n.inputs {
				found = &c.byID[NodeShardID(n.Object)][i]
				break
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if found == nil {
		c.built++
		return nil
	}
	h, err := found.node(root)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		c.built++
		return nil
	}
	c.taken++
	return h
}
