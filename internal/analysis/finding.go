package analysis

import (
	"cmp"

	"github.com/routeguard/routeguard/internal/manifest"
)

// ObjectRef names the object a finding is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// RefOf returns the reference of o, with its namespace as written (use
// Context.Ref to default it).
func RefOf(o *manifest.Object) ObjectRef {
	return ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// String renders the reference as "Kind ns/name" (or "Kind name").
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Group returns the API group of the reference ("" for core).
func (r ObjectRef) Group() string {
	for i := 0; i < len(r.APIVersion); i++ {
		if r.APIVersion[i] == '/' {
			return r.APIVersion[:i]
		}
	}
	return ""
}

// Finding is one problem an analyzer found.
type Finding struct {
	Code     string          // stable catalog code, e.g. "RG1101"; Istio's own keep "IST0101"
	Severity Severity        // zero: the catalog default for Code
	Message  string          // what is wrong and how to fix it
	Object   ObjectRef       // the object the finding is about
	Source   manifest.Source // where the object is defined (file:line)
	Analyzer string          // name of the analyzer that reported it ("<pkg>.<Type>")
	// App names the Argo CD Application ("namespace/name") that renders
	// the object, when the objects of several Applications are analyzed
	// together; empty otherwise.
	App string
	// Args are the typed arguments Message was filled from with Code's
	// template (Message(Code, Args...); ReportCode and Fill keep them),
	// so that what identifies a finding across runs (the report
	// fingerprints) does not change when a template is reworded. Nil when
	// the message was written some other way (Istio's, plugins', build
	// errors); no output prints them.
	Args []any
}

// Subject renders what the finding is about: "Kind ns/name", followed by
// "(Application ns/name)" when the finding names its Application and is
// not about that Application itself (RG0009, RG0007 name it once).
func (f Finding) Subject() string {
	o := f.Object
	if f.App == "" || (o.Kind == "Application" && o.Group() == "argoproj.io" && o.Namespace+"/"+o.Name == f.App) {
		return f.Object.String()
	}
	return f.Object.String() + " (Application " + f.App + ")"
}

// findingKey is what makes two findings the same one (settle drops the
// second): every field but Args, which Message already spells out.
type findingKey struct {
	code, message, analyzer, app string
	severity                     Severity
	object                       ObjectRef
	source                       manifest.Source
}

// Same reports whether f and g are the same finding: equal in every
// field but Args (Finding holds a slice, so == does not compile).
func (f Finding) Same(g Finding) bool { return f.key() == g.key() }

func (f Finding) key() findingKey {
	return findingKey{code: f.Code, message: f.Message, analyzer: f.Analyzer, app: f.App,
		severity: f.Severity, object: f.Object, source: f.Source}
}

// compareFindings orders findings by file, line, code, object, message.
func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Source.File, b.Source.File),
		cmp.Compare(a.Source.Line, b.Source.Line),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Object.String(), b.Object.String()),
		cmp.Compare(a.Object.APIVersion, b.Object.APIVersion),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.Analyzer, b.Analyzer),
		cmp.Compare(a.App, b.App),
	)
}
