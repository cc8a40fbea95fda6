package routediff

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/codeowners"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/sharedroutes"
)

// findShared lists the changes to shared routing (package sharedroutes)
// with the CODEOWNERS entries of the head revision. Objects are owned by
// what the builds say (Application, Kustomization), else by their path.
func (r *Result) findShared(opts Options, headRoot string, rels []string, baseOut, headOut map[string]*pipeline.Outcome, baseSet, headSet *manifest.Set) error {
	cr, err := confine.Open(headRoot)
	if err != nil {
		return err
	}
	defer cr.Close()
	owners, err := codeowners.Find(cr, opts.CodeOwners)
	if err != nil {
		return fmt.Errorf("CODEOWNERS: %w", err)
	}
	if owners != nil {
		r.CodeOwnersFile = owners.Path
	}
	base := sharedroutes.Revision{Map: r.BaseMap, Set: baseSet, Owners: ownersOf(rels, baseOut)}
	head := sharedroutes.Revision{Map: r.HeadMap, Set: headSet, Owners: ownersOf(rels, headOut)}
	r.Shared = sharedroutes.Find(base, head, r.Routing, owners)
	return nil
}

// ownersOf merges the outcomes' owners; objects of an outcome without
// owners belong to its path.
func ownersOf(rels []string, outs map[string]*pipeline.Outcome) map[manifest.Key]pipeline.Owner {
	m := map[manifest.Key]pipeline.Owner{}
	for _, rel := range rels {
		out := outs[rel]
		if out == nil {
			continue
		}
		if out.Owners != nil {
			for k, o := range out.Owners {
				if _, ok := m[k]; !ok {
					m[k] = o
				}
			}
			continue
		}
		for _, o := range out.Set.Objects() {
			if _, ok := m[o.Key()]; !ok {
				m[o.Key()] = pipeline.Owner{Kind: "path", Name: rel}
			}
		}
	}
	return m
}

// sharedTitle is the title of the table of shared routing.
const sharedTitle = "Shared routing (another owner's Gateway)"

// sharedSection is the review's table of shared routing changes.
func (r *Result) sharedSection() section {
	s := section{title: sharedTitle, columns: []string{"", "route", "route owner", "gateway", "gateway owner", "codeowners"}}
	for _, it := range r.Shared {
		route, routeOwner := "(the Gateway itself)", ""
		if it.Route != "" {
			route = it.Route
			routeOwner = it.RouteOwner.String()
		}
		var cos []string
		for _, f := range it.Files {
			if len(f.Entries) == 0 {
				cos = append(cos, f.Role+" "+f.Path+": no CODEOWNERS entry")
				continue
			}
			var es []string
			for _, e := range f.Entries {
				es = append(es, e.String())
			}
			cos = append(cos, f.Role+" "+f.Path+": "+strings.Join(es, "; "))
		}
		s.rows = append(s.rows, []string{it.Change, route, routeOwner, it.Gateway, it.GatewayOwner.String(), strings.Join(cos, " · ")})
	}
	return s
}

// SharedChanged reports whether the change touches shared routing.
func (r *Result) SharedChanged() bool { return len(r.Shared) > 0 }
