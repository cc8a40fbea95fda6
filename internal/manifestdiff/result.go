package manifestdiff

import (
	"github.com/routeguard/routeguard/internal/manifest"
)

// App is what renders objects: an Argo CD Application, a Flux
// Kustomization or HelmRelease ("namespace/name"), or an app path.
type App struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

func (a App) String() string { return a.Kind + " " + a.Name }

// Group is the objects one app renders at one revision.
type Group struct {
	App     App
	Objects []*manifest.Object
}

// Input is what to compare: each revision's objects by app, and the
// pointers each app asks to leave out (an Application's ignoreDifferences,
// applied to its objects at both revisions).
type Input struct {
	Base, Head []Group
	Ignore     map[App][]Pointer
	// BaseUnbuilt and HeadUnbuilt are the apps not built (or built
	// partly) at that revision: an object of theirs the other revision
	// has is not compared (it is not added or removed, only not built),
	// and NotCompared says so.
	BaseUnbuilt, HeadUnbuilt map[App]bool
}

// Options tune the comparison.
type Options struct {
	// Pointers are the user's (--ignore-pointer), for every app.
	Pointers []Pointer
	// MaxObjectLines is the most lines an object may have at either
	// revision to be diffed (0: DefaultMaxObjectLines); a larger one is
	// listed with its size and a notice, not diffed.
	MaxObjectLines int
}

// DefaultMaxObjectLines bounds one object's diff: 20,000 lines a side.
const DefaultMaxObjectLines = 20000

// Level is a notice's severity.
type Level string

const (
	LevelNote    Level = "note"
	LevelWarning Level = "warning"
)

// Notice is something the review could not do or leaves out.
type Notice struct {
	Level Level
	Text  string
}

// Change is how an object differs.
type Change string

const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// ObjectDiff is one object's diff.
type ObjectDiff struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Change     Change `json:"change"`
	// RenamedFrom is the base name of an object whose name Kustomize
	// suffixes with a hash of its content (configMapGenerator,
	// secretGenerator): the two names are diffed as one object.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// MovedFrom is the app that rendered the object at base, when another
	// renders it at head.
	MovedFrom *App `json:"movedFrom,omitempty"`
	// LinesAdded and LinesRemoved count the diff's + and - lines.
	LinesAdded   int `json:"linesAdded"`
	LinesRemoved int `json:"linesRemoved"`
	// OmittedLines, when not 0, is the object's size (base and head
	// lines): over Options.MaxObjectLines, it was not diffed.
	OmittedLines int    `json:"omittedLines,omitempty"`
	Hunks        []Hunk `json:"hunks"`
}

// Header names the object: "apps/v1 Deployment shop/web".
func (o ObjectDiff) Header() string {
	s := o.APIVersion + " " + o.Kind + " "
	if o.Namespace != "" {
		s += o.Namespace + "/"
	}
	return s + o.Name
}

// AppDiff is the diff of one app's objects.
type AppDiff struct {
	App     App          `json:"app"`
	Objects []ObjectDiff `json:"objects"`
}

// Result is the manifest review.
type Result struct {
	Apps []AppDiff
	// Filters are the noise filters and pointers that removed something
	// from an object at either revision.
	Filters []string
	// FilteredOnly counts the objects that differ only in what the
	// filters removed (not shown).
	FilteredOnly int
	// Redacted counts the Secrets whose values were redacted.
	Redacted int
	// NotCompared are the apps whose objects at one revision were not
	// compared because the app was not built (or built partly) at the
	// other, with how many objects that leaves out.
	NotCompared []NotCompared
	Notices     []Notice
}

// NotCompared is an app not built at one revision.
type NotCompared struct {
	App App `json:"app"`
	// Revision is where it was not built: "base" or "head".
	Revision string `json:"notBuiltAt"`
	// Objects counts its objects at the other revision, not compared.
	Objects int `json:"objectsNotCompared"`
}

// Changed reports whether any object differs.
func (r *Result) Changed() bool { return len(r.Apps) > 0 }

// Objects counts the objects that differ.
func (r *Result) Objects() int {
	n := 0
	for _, a := range r.Apps {
		n += len(a.Objects)
	}
	return n
}
