package routediff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/manifestdiff"
	"github.com/routeguard/routeguard/internal/markdown"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/printable"
)

// The manifest review (--diff=manifests|both): the same builds of both
// revisions, diffed object by object (internal/manifestdiff), beside the
// routing review or instead of it.

// Review says what a diff shows.
type Review string

// The reviews: routing (the default), the manifest diff, or both.
const (
	ReviewRouting   Review = "routing"
	ReviewManifests Review = "manifests"
	ReviewBoth      Review = "both"
)

// Reviews are the values of --diff.
var Reviews = []string{string(ReviewRouting), string(ReviewManifests), string(ReviewBoth)}

// ManifestOptions tune the manifest review.
type ManifestOptions struct {
	// Pointers are the user's --ignore-pointer values.
	Pointers []manifestdiff.Pointer
	// MaxObjectLines caps one object's diff (0: manifestdiff's default).
	MaxObjectLines int
	// Ignore, when set, returns the pointers each app of an outcome asks
	// to leave out (an Argo CD Application's ignoreDifferences), and what
	// of them cannot be applied.
	Ignore func(out *pipeline.Outcome) (map[manifestdiff.App][]manifestdiff.Pointer, []manifestdiff.Notice)
}

// manifestsWanted reports whether the review includes the manifest diff.
func (v Review) manifestsWanted() bool { return v == ReviewManifests || v == ReviewBoth }

// routingWanted reports whether the review includes the routing review.
func (v Review) routingWanted() bool { return v != ReviewManifests }

// compareManifests diffs the objects of both revisions, by app: an app
// path in the analyze mode, the owner of each object (Application,
// Kustomization, HelmRelease) for a whole tree.
func (r *Result) compareManifests(opts ManifestOptions, rels []string, baseOut, headOut map[string]*pipeline.Outcome) ([]notice.Notice, error) {
	in := manifestdiff.Input{Ignore: map[manifestdiff.App][]manifestdiff.Pointer{},
		BaseUnbuilt: map[manifestdiff.App]bool{}, HeadUnbuilt: map[manifestdiff.App]bool{}}
	var notices []notice.Notice
	seen := map[*pipeline.Outcome]bool{}
	for i, outs := range []map[string]*pipeline.Outcome{baseOut, headOut} {
		var groups []manifestdiff.Group
		for _, rel := range rels {
			out := outs[rel]
			if out == nil {
				continue
			}
			groups = append(groups, appGroups(rel, out)...)
			if opts.Ignore != nil && !seen[out] {
				seen[out] = true
				rules, ns := opts.Ignore(out)
				for app, ps := range rules {
					if _, done := in.Ignore[app]; !done || i == 1 { // head's rules win
						in.Ignore[app] = ps
					}
				}
				notices = append(notices, manifestNotices(ns)...)
			}
		}
		if i == 0 {
			in.Base = groups
		} else {
			in.Head = groups
		}
	}
	for _, n := range r.NotBuilt {
		kind, name, _ := strings.Cut(n.What, " ")
		app := manifestdiff.App{Kind: kind, Name: name}
		if n.Revision == "base" {
			in.BaseUnbuilt[app] = true
		} else {
			in.HeadUnbuilt[app] = true
		}
	}
	res, err := manifestdiff.Compare(in, manifestdiff.Options{Pointers: opts.Pointers, MaxObjectLines: opts.MaxObjectLines})
	if err != nil {
		return nil, fmt.Errorf("manifest diff: %w", err)
	}
	r.Manifests = res
	return append(dedupNotices(notices), manifestNotices(res.Notices)...), nil
}

// appGroups splits an outcome's objects by what renders them: its Owners
// for a whole tree, else the path.
func appGroups(rel string, out *pipeline.Outcome) []manifestdiff.Group {
	path := manifestdiff.App{Kind: "path", Name: rel}
	if out.Owners == nil {
		return []manifestdiff.Group{{App: path, Objects: out.Set.Objects()}}
	}
	var order []manifestdiff.App
	by := map[manifestdiff.App][]*manifest.Object{}
	for _, o := range out.Set.Objects() {
		app := path
		if owner, ok := out.Owners[o.Key()]; ok {
			app = manifestdiff.App{Kind: owner.Kind, Name: owner.Name}
		}
		if _, ok := by[app]; !ok {
			order = append(order, app)
		}
		by[app] = append(by[app], o)
	}
	groups := make([]manifestdiff.Group, len(order))
	for i, app := range order {
		groups[i] = manifestdiff.Group{App: app, Objects: by[app]}
	}
	return groups
}

func manifestNotices(ns []manifestdiff.Notice) []notice.Notice {
	out := make([]notice.Notice, len(ns))
	for i, n := range ns {
		level := notice.Note
		if n.Level == manifestdiff.LevelWarning {
			level = notice.Warning
		}
		out[i] = notice.Notice{Level: level, Text: n.Text}
	}
	return out
}

// dedupNotices drops repeats (the same Application's rules said at both
// revisions).
func dedupNotices(ns []notice.Notice) []notice.Notice {
	seen := map[notice.Notice]bool{}
	var out []notice.Notice
	for _, n := range ns {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Changed reports whether what the review shows changed: the routing, the
// manifests, or either.
func (r *Result) Changed() bool {
	switch r.Review {
	case ReviewManifests:
		return r.Manifests.Changed()
	case ReviewBoth:
		return r.RoutingChanged() || r.Manifests.Changed()
	}
	return r.RoutingChanged()
}

// ComparedFully reports whether the review compared everything it shows:
// for routing, everything at head that holds routing was built; for the
// manifests, every part at head was built.
func (r *Result) ComparedFully() bool {
	manifests := true
	for _, n := range r.NotBuilt {
		manifests = manifests && n.Revision != "head"
	}
	switch r.Review {
	case ReviewManifests:
		return manifests
	case ReviewBoth:
		return manifests && r.RoutingComparedFully()
	}
	return r.RoutingComparedFully()
}

// manifestRest says where the whole manifest review is.
const manifestRest = "`routeguard diff --diff=manifests -o json` has it all"

// writeManifestsText writes the manifest review alone for a terminal.
func (r *Result) writeManifestsText(w io.Writer) error {
	fmt.Fprintf(w, "routeguard diff %s\npaths: %s\n", text(r.revisions()), text(strings.Join(r.Paths, " ")))
	if len(r.NotCompared) > 0 {
		fmt.Fprintf(w, "(%s part(s) could be built at neither revision and were not compared; stderr names them)\n", printable.Count(len(r.NotCompared)))
	}
	if u := r.unchecked(); u != "" {
		fmt.Fprintf(w, "(%s)\n", text(u))
	}
	fmt.Fprintln(w)
	return r.Manifests.WriteText(w)
}

// manifestsHead is the start of a comment of the manifest review alone.
func (r *Result) manifestsHead() string {
	var head strings.Builder
	head.WriteString(Marker + "\n### routeguard: manifest review\n\n")
	fmt.Fprintf(&head, "**base** %s → **head** %s · paths: %s\n", mdCode(revString(r.Base)), mdCode(revString(r.Head)),
		markdown.Code(printable.Cut(strings.Join(r.Paths, " "), maxPathsChars)))
	if u := r.unchecked(); u != "" {
		head.WriteString("\n> ⚠️ " + markdown.Cell(u, 1000) + "\n")
	}
	if len(r.NotCompared) > 0 {
		fmt.Fprintf(&head, "\n> ⚠️ %s part(s) could be built at neither revision and were not compared (stderr of the run names them).\n", printable.Count(len(r.NotCompared)))
	}
	return head.String()
}

// writeManifestsJSON writes the manifest review alone: the revisions, the
// paths, what was not built or compared, and the review.
func (r *Result) writeManifestsJSON(w io.Writer) error {
	doc := struct {
		Base          Rev                  `json:"base"`
		Head          Rev                  `json:"head"`
		Paths         []string             `json:"paths"`
		NotBuilt      []NotBuilt           `json:"notBuilt,omitempty"`
		NotCompared   []string             `json:"notCompared,omitempty"`
		ComparedFully bool                 `json:"manifestsComparedFully"`
		Manifests     *manifestdiff.Result `json:"manifests"`
	}{r.Base, r.Head, r.Paths, r.NotBuilt, r.NotCompared, r.ComparedFully(), r.Manifests}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
