package pipeline

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// CarriedOutcome is an Outcome in a form that can leave the process (a
// shard file of routeguard diff) and come back as the same outcome for
// the review: its objects in order (manifest.CarriedObject), findings,
// notices, unbuilt parts and unrendered scopes, with the checkout's root
// written as manifest.RootToken. What only the process that analyzed it
// reads (Config, FailOn, Failed, PluginFailed) stays behind, and Owners
// (set only for a whole tree) is not carried.
type CarriedOutcome struct {
	Objects    []manifest.CarriedObject   `json:"objects,omitempty"`
	Findings   []analysis.CarriedFinding  `json:"findings,omitempty"`
	Notices    []notice.Notice            `json:"notices,omitempty"`
	Unbuilt    []notice.Unbuilt           `json:"unbuilt,omitempty"`
	Unrendered []analysis.UnrenderedScope `json:"unrendered,omitempty"`
}

// Carry is the carried form of o, built from the checkout at root.
func (o *Outcome) Carry(root string) (*CarriedOutcome, error) {
	if o.Owners != nil {
		return nil, fmt.Errorf("the outcome of a whole tree is not carried this way")
	}
	c := &CarriedOutcome{}
	if o.Set != nil {
		for _, x := range o.Set.Objects() {
			co, err := manifest.Carry(x, root)
			if err != nil {
				return nil, err
			}
			c.Objects = append(c.Objects, co)
		}
	}
	for _, f := range o.Findings {
		cf, err := f.Carry(root)
		if err != nil {
			return nil, err
		}
		c.Findings = append(c.Findings, cf)
	}
	c.Notices, c.Unbuilt, c.Unrendered = rewriteTexts(func(s string) string { return manifest.Tokenize(s, root) }, o.Notices, o.Unbuilt, o.Unrendered)
	return c, nil
}

// Outcome is the outcome c carries, under the checkout root.
func (c *CarriedOutcome) Outcome(root string) (*Outcome, error) {
	o := &Outcome{RepoRoot: root, Set: manifest.NewSet()}
	for i, co := range c.Objects {
		x, err := co.Object(root)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", i+1, err)
		}
		if err := o.Set.Add(x); err != nil {
			return nil, fmt.Errorf("object %d: %w", i+1, err)
		}
	}
	for _, cf := range c.Findings {
		f, err := cf.Finding(root)
		if err != nil {
			return nil, err
		}
		o.Findings = append(o.Findings, f)
	}
	o.Notices, o.Unbuilt, o.Unrendered = rewriteTexts(func(s string) string { return manifest.Untokenize(s, root) }, c.Notices, c.Unbuilt, c.Unrendered)
	return o, nil
}

// rewriteTexts is copies of the notices, unbuilt parts and unrendered
// scopes with f applied to each text and path that may name the checkout
// (the root as a token, or back).
func rewriteTexts(f func(string) string, ns []notice.Notice, us []notice.Unbuilt, rs []analysis.UnrenderedScope) ([]notice.Notice, []notice.Unbuilt, []analysis.UnrenderedScope) {
	var nout []notice.Notice
	for _, n := range ns {
		nout = append(nout, notice.Notice{Level: n.Level, Text: f(n.Text)})
	}
	var uout []notice.Unbuilt
	for _, u := range us {
		u.Where, u.Why, u.RoutingFiles = f(u.Where), f(u.Why), mapAll(u.RoutingFiles, f)
		uout = append(uout, u)
	}
	var rout []analysis.UnrenderedScope
	for _, r := range rs {
		r.Reason, r.Paths = f(r.Reason), mapAll(r.Paths, f)
		rout = append(rout, r)
	}
	return nout, uout, rout
}

// mapAll is s with f applied to each (nil stays nil).
func mapAll(s []string, f func(string) string) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}
