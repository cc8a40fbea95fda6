package routediff

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routing"
)

// What a review could not build, at each revision: a clean diff of what
// was built says nothing about it, so the review says it, counted and
// named, and never reads "no routing change" while routing that was not
// built at head may have changed.

// NotBuilt is a part of one revision that was not built, or built partly.
type NotBuilt struct {
	Revision string `json:"revision"` // "base" or "head"
	notice.Unbuilt
}

// notBuilt collects the parts of both revisions that were not built: what
// the front doors say (outcome.Unbuilt) and the paths that do not render
// (renderFailure), with the routing their files hold.
func notBuilt(rels []string, roots [2]string, outs [2]map[string]*pipeline.Outcome) []NotBuilt {
	var out []NotBuilt
	for i, rev := range []string{"base", "head"} {
		for _, rel := range rels {
			o := outs[i][rel]
			if o == nil {
				continue
			}
			if failed(o) {
				u := notice.Unbuilt{What: "path " + rel, Where: rel, Why: o.Findings[0].Message, RoutingFiles: routingFilesIn(roots[i], rel)}
				out = append(out, NotBuilt{Revision: rev, Unbuilt: u})
				continue
			}
			for _, u := range o.Unbuilt {
				out = append(out, NotBuilt{Revision: rev, Unbuilt: u})
			}
		}
	}
	return out
}

// maxRoutingScan bounds the files a path's scan reads.
const maxRoutingScan = 2000

// routingFilesIn lists the files under rel (in the revision at root) that
// declare routing objects, read as text (a chart's templates too).
func routingFilesIn(root, rel string) []string {
	cr, err := confine.Open(root)
	if err != nil {
		return nil
	}
	defer cr.Close()
	dir := filepath.Join(root, filepath.FromSlash(rel))
	var out []string
	n := 0
	_ = cr.Walk(dir, confine.WalkOptions{}, func(p string, fi fs.FileInfo) error {
		if n >= maxRoutingScan {
			return confine.SkipDir
		}
		if fi.IsDir() {
			if p != "." && strings.HasPrefix(path.Base(p), ".") {
				return confine.SkipDir
			}
			return nil
		}
		if ext := path.Ext(p); ext != ".yaml" && ext != ".yml" && ext != ".json" || !fi.Mode().IsRegular() {
			return nil
		}
		n++
		if data, err := cr.ReadFile(filepath.Join(dir, filepath.FromSlash(p)), manifest.DefaultMaxFileBytes); err == nil && routing.Mentioned(data) {
			out = append(out, path.Join(rel, p))
		}
		return nil
	})
	return out
}

// HeadUnchecked lists the parts not built (or built partly) at head that
// hold routing: what the review could not compare.
func (r *Result) HeadUnchecked() []NotBuilt {
	var out []NotBuilt
	for _, n := range r.NotBuilt {
		if n.Revision == "head" && len(n.RoutingFiles) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// RoutingComparedFully reports whether everything at head that holds
// routing was built: only then does an empty routing diff mean "no
// routing change".
func (r *Result) RoutingComparedFully() bool { return len(r.HeadUnchecked()) == 0 }

// unchecked says what the summary adds about parts not built.
func (r *Result) unchecked() string {
	heads, bases := 0, 0
	for _, n := range r.NotBuilt {
		if n.Revision == "head" {
			heads++
		} else {
			bases++
		}
	}
	if heads+bases == 0 {
		return ""
	}
	s := fmt.Sprintf("not built: %d at head, %d at base", heads, bases)
	if u := r.HeadUnchecked(); len(u) > 0 {
		s += fmt.Sprintf("; %d of them at head hold routing that cannot be checked (%s)", len(u), u[0].What)
		if len(u) > 1 {
			s = strings.TrimSuffix(s, ")") + fmt.Sprintf(", and %d more)", len(u)-1)
		}
	}
	var head []notice.Unbuilt
	for _, n := range r.NotBuilt {
		if n.Revision == "head" {
			head = append(head, n.Unbuilt)
		}
	}
	if c := notice.ChartsNotFetched(head); c.Parts > 0 {
		s += fmt.Sprintf("; %d at head because their charts were not fetched (%d routing files or values not checked)", c.Parts, c.Routing)
	}
	return s
}

// removedWith splits the findings that are gone at head into those whose
// object is still there (fixed) and those whose object was removed with
// them: a finding about an object that no longer exists was not fixed.
func removedWith(gone []analysis.Finding, head *manifest.Set, defaultNS string) (fixed, removed []analysis.Finding) {
	for _, f := range gone {
		if f.Object.Kind == "" || present(head, f.Object, defaultNS) {
			fixed = append(fixed, f)
			continue
		}
		removed = append(removed, f)
	}
	return fixed, removed
}

func present(set *manifest.Set, r analysis.ObjectRef, defaultNS string) bool {
	k := manifest.Key{Group: r.Group(), Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	if _, ok := set.Get(k); ok {
		return true
	}
	if defaultNS == "" {
		defaultNS = "default"
	}
	if k.Namespace == defaultNS || k.Namespace == "" {
		for _, ns := range []string{"", defaultNS} {
			k.Namespace = ns
			if _, ok := set.Get(k); ok {
				return true
			}
		}
	}
	return false
}
