package apiserver

import (
	"maps"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Compiling a CRD's CEL rules is most of what validation costs a small
// app: HTTPRoute's 89 rules sit on 26 schema nodes and take ~60 ms to
// compile, DestinationRule's 47 ~40 ms, while an app's routes set a few
// of those fields. apiextensions' validator evaluates a node's rules only
// where the object has a value (after defaulting): the rules of nodes no
// object reaches are never run. So a compiled CRD version compiles the
// rules of the nodes its objects reach, and compiles again, with more,
// when an object reaches further (celFor). What an object reaches is read
// from the object validation evaluates (pruned and defaulted), so the
// rules that run are exactly upstream's; compileAhead only predicts it,
// to compile once per run (reachBeforeDefaults).

// ruleTree mirrors the schema nodes whose subtree carries
// x-kubernetes-validations, numbering the nodes that carry rules.
type ruleTree struct {
	id         int  // this node's number; -1: no rules on this node
	first, end int  // the numbers of this subtree: [first, end)
	defaulted  bool // the schema gives the node a default: defaulting can create it
	props      map[string]*ruleTree
	items      *ruleTree
	addl       *ruleTree
}

// newRuleTree numbers the rule-carrying nodes of s; nil when s has none
// that upstream's validator would compile (cel.NewValidator returns nil
// when no node has x-kubernetes-validations of its own).
func newRuleTree(s *structuralschema.Structural) (*ruleTree, int) {
	if !hasOwnRulesBelow(s) {
		return nil, 0
	}
	n := 0
	return buildRuleTree(s, &n), n
}

func buildRuleTree(s *structuralschema.Structural, next *int) *ruleTree {
	t := &ruleTree{id: -1, first: *next, defaulted: s.Default.Object != nil}
	if hasRules(s) {
		t.id = *next
		*next++
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[k]
		if c := buildRuleTree(&p, next); c != nil {
			if t.props == nil {
				t.props = map[string]*ruleTree{}
			}
			t.props[k] = c
		}
	}
	if s.Items != nil {
		t.items = buildRuleTree(s.Items, next)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		t.addl = buildRuleTree(s.AdditionalProperties.Structural, next)
	}
	t.end = *next
	if t.end == t.first {
		return nil
	}
	return t
}

// hasRules reports whether rules sit on s itself: its own or those of
// its allOf branches (which upstream evaluates at s, descending with s).
func hasRules(s *structuralschema.Structural) bool {
	if len(s.XValidations) > 0 {
		return true
	}
	if s.ValueValidation == nil {
		return false
	}
	for i := range s.ValueValidation.AllOf {
		if nestedHasRules(&s.ValueValidation.AllOf[i]) {
			return true
		}
	}
	return false
}

func nestedHasRules(n *structuralschema.NestedValueValidation) bool {
	if n == nil {
		return false
	}
	if len(n.XValidations) > 0 || nestedHasRules(n.Items) || nestedHasRules(n.AdditionalProperties) {
		return true
	}
	for _, p := range n.Properties {
		if nestedHasRules(&p) {
			return true
		}
	}
	for i := range n.AllOf {
		if nestedHasRules(&n.AllOf[i]) {
			return true
		}
	}
	return false
}

// hasOwnRulesBelow is apiextensions' hasXValidations: rules of s or of a
// property, item or additional property, allOf branches left out.
func hasOwnRulesBelow(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasOwnRulesBelow(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasOwnRulesBelow(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if hasOwnRulesBelow(&p) {
			return true
		}
	}
	return false
}

// ruleSet is a set of rule-carrying node numbers.
type ruleSet []uint64

func newRuleSet(n int) ruleSet { return make(ruleSet, (n+63)/64) }

func (r ruleSet) add(i int) { r[i/64] |= 1 << (i % 64) }

func (r ruleSet) addRange(from, to int) {
	for i := from; i < to; i++ {
		r.add(i)
	}
}

func (r ruleSet) has(i int) bool { return r[i/64]&(1<<(i%64)) != 0 }

func (r ruleSet) covers(o ruleSet) bool {
	for i, w := range o {
		if w&^r[i] != 0 {
			return false
		}
	}
	return true
}

func (r ruleSet) union(o ruleSet) ruleSet {
	out := slices.Clone(r)
	for i, w := range o {
		out[i] |= w
	}
	return out
}

func (r ruleSet) count() int {
	n := 0
	for _, w := range r {
		n += bits.OnesCount64(w)
	}
	return n
}

// reach adds to need the rule-carrying nodes v has a value at, v being
// the object as the rules see it (pruned and defaulted).
func (t *ruleTree) reach(v any, need ruleSet) {
	if t.id >= 0 {
		need.add(t.id)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range t.props {
			if cv, ok := v[k]; ok {
				c.reach(cv, need)
			}
		}
		if t.addl != nil {
			for _, cv := range v {
				t.addl.reach(cv, need)
			}
		}
	case []any:
		if t.items != nil {
			for _, it := range v {
				t.items.reach(it, need)
			}
		}
	}
}

// reachBeforeDefaults is reach for an object not yet pruned and
// defaulted: a node the object leaves out (or sets to null) that has a
// default counts with all of its subtree, which the default may fill in.
// It adds at least what reach adds for the same object once defaulted.
func (t *ruleTree) reachBeforeDefaults(v any, need ruleSet) {
	if t.id >= 0 {
		need.add(t.id)
	}
	child := func(c *ruleTree, cv any, set bool) {
		if c.defaulted && (!set || cv == nil) {
			need.addRange(c.first, c.end)
			return
		}
		if set {
			c.reachBeforeDefaults(cv, need)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range t.props {
			cv, ok := v[k]
			child(c, cv, ok)
		}
		if t.addl != nil {
			for _, cv := range v {
				child(t.addl, cv, true)
			}
		}
	case []any:
		if t.items != nil {
			for _, it := range v {
				child(t.items, it, true)
			}
		}
	}
}

// strip removes, in s (a copy), the rules of the nodes need leaves out.
func (t *ruleTree) strip(s *structuralschema.Structural, need ruleSet) {
	if t.id >= 0 && !need.has(t.id) {
		s.XValidations = nil
		if s.ValueValidation != nil && len(s.ValueValidation.AllOf) > 0 {
			vv := *s.ValueValidation
			vv.AllOf = slices.Clone(vv.AllOf)
			for i := range vv.AllOf {
				stripNested(&vv.AllOf[i])
			}
			s.ValueValidation = &vv
		}
	}
	for k, c := range t.props {
		p := s.Properties[k]
		c.strip(&p, need)
		s.Properties[k] = p
	}
	if t.items != nil {
		t.items.strip(s.Items, need)
	}
	if t.addl != nil {
		t.addl.strip(s.AdditionalProperties.Structural, need)
	}
}

// stripNested removes every rule of an allOf branch (a copy).
func stripNested(n *structuralschema.NestedValueValidation) {
	n.XValidations = nil
	if n.Items != nil {
		it := *n.Items
		stripNested(&it)
		n.Items = &it
	}
	if n.AdditionalProperties != nil {
		ap := *n.AdditionalProperties
		stripNested(&ap)
		n.AdditionalProperties = &ap
	}
	if n.Properties != nil {
		props := make(map[string]structuralschema.NestedValueValidation, len(n.Properties))
		for k, p := range n.Properties {
			stripNested(&p)
			props[k] = p
		}
		n.Properties = props
	}
	if len(n.AllOf) > 0 {
		n.AllOf = slices.Clone(n.AllOf)
		for i := range n.AllOf {
			stripNested(&n.AllOf[i])
		}
	}
}

// celRules is a compiled CRD version's CEL validator for the rules of the
// nodes in have (all others stripped from schema).
type celRules struct {
	have      ruleSet
	validator *cel.Validator
	schema    *structuralschema.Structural // what validator was built from
	cached    bool                         // the cached schema adaptor is installed (celschema.go)
}

// celCompiler compiles a version's rules as objects reach them.
type celCompiler struct {
	tree   *ruleTree
	nodes  int
	schema *structuralschema.Structural
	cached bool // install the cached schema adaptor

	mu     sync.Mutex
	grown  int // compilations so far
	latest atomic.Pointer[celRules]
}

// fullAfter is how many partial compilations a version gets before the
// next one compiles every rule: a process that validates many apps (a
// whole Argo CD repository, a Flux tree) reaching further each time would
// otherwise compile the same rules again and again.
const fullAfter = 3

// rulesFor returns a validator with at least the rules of need.
func (c *celCompiler) rulesFor(need ruleSet) *celRules {
	if r := c.latest.Load(); r != nil && r.have.covers(need) {
		return r
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.latest.Load()
	if cur != nil && cur.have.covers(need) {
		return cur
	}
	want := need
	if cur != nil {
		want = cur.have.union(need)
	}
	if c.grown++; c.grown > fullAfter {
		want = c.all()
	}
	r := c.compile(want)
	c.latest.Store(r)
	return r
}

func (c *celCompiler) all() ruleSet {
	r := newRuleSet(c.nodes)
	r.addRange(0, c.nodes)
	return r
}

func (c *celCompiler) compile(have ruleSet) *celRules {
	s := c.schema
	if have.count() < c.nodes {
		s = s.DeepCopy()
		c.tree.strip(s, have)
	}
	r := &celRules{have: have, schema: s, validator: cel.NewValidator(s, true, celconfig.PerCallLimit)}
	if c.cached {
		r.cached = installCachedSchemas(r.validator)
	}
	return r
}
