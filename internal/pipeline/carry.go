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
	t := func(s string) string { return manifest.Tokenize(s, root) }
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
	for _, n := range o.Notices {
		c.Notices = append(c.Notices, notice.Notice{Level: n.Level, Text: t(n.Text)})
	}
	for _, u := range o.Unbuilt {
		u.Where, u.Why, u.RoutingFiles = t(u.Where), t(u.Why), tokenizeAll(u.RoutingFiles, t)
		c.Unbuilt = append(c.Unbuilt, u)
	}
	for _, u := range o.Unrendered {
		u.Reason, u.Paths = t(u.Reason), tokenizeAll(u.Paths, t)
		c.Unrendered = append(c.Unrendered, u)
	}
	return c, nil
}

// Outcome is the outcome c carries, under the checkout root.
func (c *CarriedOutcome) Outcome(root string) (*Outcome, error) {
	u := func(s string) string { return manifest.Untokenize(s, root) }
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
	for _, n := range c.Notices {
		o.Notices = append(o.Notices, notice.Notice{Level: n.Level, Text: u(n.Text)})
	}
	for _, x := range c.Unbuilt {
		x.Where, x.Why, x.RoutingFiles = u(x.Where), u(x.Why), tokenizeAll(x.RoutingFiles, u)
		o.Unbuilt = append(o.Unbuilt, x)
	}
	for _, x := range c.Unrendered {
		x.Reason, x.Paths = u(x.Reason), tokenizeAll(x.Paths, u)
		o.Unrendered = append(o.Unrendered, x)
	}
	return o, nil
}

// tokenizeAll is s with f applied to each (nil stays nil).
func tokenizeAll(s []string, f func(string) string) []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}
