package project

import (
	"fmt"
	"slices"

	"github.com/routeguard/routeguard/internal/notice"
)

// Rank orders where a project was read: a higher rank replaces a lower
// one of the same name.
type Rank int

const (
	// Scanned: a manifest found under the paths given.
	Scanned Rank = iota
	// Rendered: an object an Application renders (what Argo CD applies).
	Rendered
	// Given: --project-file (the operator's word).
	Given
)

// Index holds the AppProjects of one Argo CD instance by name.
type Index struct {
	// Namespace is Argo CD's own namespace: projects elsewhere are not
	// Argo CD's (the controller reads projects only there).
	Namespace string
	byName    map[string]ranked
	notices   []notice.Notice
	// scopedRepos and scopedDests: what project-scoped repository and
	// cluster Secrets add to each project (scoped.go).
	scopedRepos map[string][]string
	scopedDests map[string][]Destination
}

type ranked struct {
	p    *Project
	rank Rank
}

// NewIndex returns an empty index for the Argo CD instance in namespace.
func NewIndex(namespace string) *Index {
	return &Index{Namespace: namespace, byName: map[string]ranked{}}
}

// Add files p. A project in another namespace than Argo CD's is left out
// with a note; of two of one name and rank the first stays, with a
// warning when they differ.
func (x *Index) Add(p *Project, rank Rank) {
	if p.Namespace != "" && p.Namespace != x.Namespace && rank != Given {
		x.note(notice.Note, "AppProject %s (%s) is in namespace %s, not Argo CD's (%s): Argo CD reads projects only from its own namespace, so it is not used",
			p.Name, p.Where(""), p.Namespace, x.Namespace)
		return
	}
	prev, ok := x.byName[p.Name]
	switch {
	case !ok || rank > prev.rank:
		x.byName[p.Name] = ranked{p, rank}
	case rank == prev.rank && !sameSpec(prev.p, p):
		x.note(notice.Warning, "AppProject %s is declared twice, differently (%s and %s); checking against the first",
			p.Name, prev.p.Where(""), p.Where(""))
	}
}

func sameSpec(a, b *Project) bool {
	return fmt.Sprintf("%#v", a.Spec) == fmt.Sprintf("%#v", b.Spec)
}

// Lookup returns the project an Application names ("" is default): the
// one read, else for default the project Argo CD creates; nil when the
// repository and --project-file hold no project of that name.
func (x *Index) Lookup(name string) *Project {
	if name == "" {
		name = DefaultName
	}
	if r, ok := x.byName[name]; ok {
		return x.withScoped(r.p)
	}
	if name == DefaultName {
		return x.withScoped(Default(x.Namespace))
	}
	return nil
}

// Names lists the projects read, sorted.
func (x *Index) Names() []string {
	var out []string
	for n := range x.byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Notices are what Add noted.
func (x *Index) Notices() []notice.Notice { return x.notices }

func (x *Index) note(level notice.Level, format string, a ...any) {
	x.notices = append(x.notices, notice.Notice{Level: level, Text: fmt.Sprintf(format, a...)})
}
