package routediff

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/routemap"
)

// section is one table of the report: a title, column names and rows whose
// first cell is the change ("added", "removed", "changed").
type section struct {
	title   string
	columns []string
	rows    [][]string
}

func weights(bs []routemap.Backend) string { return routemap.BackendsString(bs) }

// sections lays the result out as tables, in the order every format
// prints them.
func (r *Result) sections() []section {
	d := r.Routing
	routes := section{title: "Routes", columns: []string{"", "parent", "host", "match", "route", "backends"}}
	for _, c := range d.Entries {
		e := *either(c.Head, c.Base)
		b := weights(e.Backends)
		if c.Change == routemap.Changed {
			b = weights(c.Base.Backends) + " → " + weights(c.Head.Backends)
		}
		routes.rows = append(routes.rows, []string{c.Change, e.Parent, e.Host, e.Match, e.Route, b})
	}
	atts := section{title: "Attachments", columns: []string{"", "route", "parent", "state", "why"}}
	for _, c := range d.Attachments {
		a := *either(c.Head, c.Base)
		state := attState(a)
		if c.Change == routemap.Changed {
			state = attState(*c.Base) + " → " + attState(*c.Head)
		}
		atts.rows = append(atts.rows, []string{c.Change, a.Route, a.Parent, state, a.Reason})
	}
	parents := section{title: "Listeners, Ingress classes and Istio gateways", columns: []string{"", "parent", "detail"}}
	for _, c := range d.Parents {
		p := *either(c.Head, c.Base)
		detail := p.Detail
		if c.Change == routemap.Changed {
			detail = c.Base.Detail + " → " + c.Head.Detail
		}
		parents.rows = append(parents.rows, []string{c.Change, p.Name, detail})
	}
	tls := section{title: "TLS hosts", columns: []string{"", "parent", "host", "certificate"}}
	for _, c := range d.TLS {
		tls.rows = append(tls.rows, []string{c.Change, c.TLS.Parent, c.TLS.Host, c.TLS.Certificate})
	}
	grants := section{title: "ReferenceGrants", columns: []string{"", "grant", "from", "to"}}
	for _, c := range d.Grants {
		grants.rows = append(grants.rows, []string{c.Change, c.Grant.Grant, c.Grant.From, c.Grant.To})
	}
	intro := section{title: "Findings introduced", columns: []string{"", "severity", "code", "object", "where", "message"}}
	for _, f := range r.Intro {
		intro.rows = append(intro.rows, []string{routemap.Added, f.Severity.String(), f.Code, f.Subject(), f.Source.String(), f.Message})
	}
	fixed := section{title: "Findings fixed", columns: []string{"", "severity", "code", "object", "where", "message"}}
	for _, f := range r.Fixed {
		fixed.rows = append(fixed.rows, []string{routemap.Removed, f.Severity.String(), f.Code, f.Subject(), f.Source.String(), f.Message})
	}
	removed := section{title: "Findings gone with their removed objects (not fixed)", columns: []string{"", "severity", "code", "object", "where", "message"}}
	for _, f := range r.Removed {
		removed.rows = append(removed.rows, []string{routemap.Removed, f.Severity.String(), f.Code, f.Subject(), f.Source.String(), f.Message})
	}
	unbuilt := section{title: notBuiltTitle, columns: []string{"", "revision", "what", "where", "why", "routing it holds"}}
	for _, n := range r.NotBuilt {
		state := "not built"
		if n.Partly {
			state = "built partly"
		}
		unbuilt.rows = append(unbuilt.rows, []string{notBuiltChange, n.Revision, n.What + " (" + state + ")", n.Where, n.Why, strings.Join(n.RoutingFiles, ", ")})
	}
	objs := section{title: "Other objects changed", columns: []string{"", "kind", "objects"}}
	for _, k := range r.Objects {
		var parts []string
		for _, c := range []struct {
			n    int
			what string
		}{{k.Added, "added"}, {k.Removed, "removed"}, {k.Changed, "changed"}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
			}
		}
		objs.rows = append(objs.rows, []string{routemap.Changed, k.Kind, strings.Join(parts, ", ")})
	}
	return []section{unbuilt, r.sharedSection(), routes, atts, parents, tls, grants, intro, fixed, removed, objs}
}

func attState(a routemap.Attachment) string {
	s := a.State
	if len(a.Listeners) > 0 {
		s += " (" + strings.Join(a.Listeners, ", ") + ")"
	}
	return s
}

func either[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// notBuiltTitle is the title of the table of parts not built.
const notBuiltTitle = "Not built, so not compared"

// notBuiltChange marks a row of a part that was not built.
const notBuiltChange = "not built"

// Summary is one line saying what changed, and what could not be compared:
// never "no routing change" while routing at head was not built.
func (r *Result) Summary() string {
	s := r.changes()
	if u := r.unchecked(); u != "" {
		if s == "no routing change" && !r.RoutingComparedFully() {
			s = "routing not fully compared: no change among what was built"
		}
		s += "; " + u
	}
	return s
}

func (r *Result) changes() string {
	d := r.Routing
	if r.Routing.Empty() && len(r.Intro) == 0 && len(r.Fixed) == 0 && len(r.Shared) == 0 {
		return "no routing change"
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(len(r.Shared), "changes to shared routing")
	add(len(d.Entries), "route entries changed")
	add(len(d.Attachments), "attachments changed")
	add(len(d.Parents), "listeners/gateways changed")
	add(len(d.TLS), "TLS hosts changed")
	add(len(d.Grants), "ReferenceGrant rules changed")
	add(len(r.Intro), "findings introduced")
	add(len(r.Fixed), "findings fixed")
	if len(parts) == 0 {
		return "no routing change"
	}
	return strings.Join(parts, ", ")
}

func (r *Result) revisions() string {
	return revString(r.Base) + " → " + revString(r.Head)
}

func revString(v Rev) string {
	if v.Hash == "" {
		return v.Name
	}
	return fmt.Sprintf("%s (%.12s)", v.Name, v.Hash)
}
