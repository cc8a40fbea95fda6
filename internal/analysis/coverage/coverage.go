package coverage

import (
	"context"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// App is an app that was rendered: the object that declares it (an Argo
// CD Application, a Flux Kustomization, ...) and what it rendered.
type App struct {
	Object analysis.ObjectRef
	Source manifest.Source
	// Name is what findings name as their app ("namespace/name" of an
	// Argo CD Application); may be empty.
	Name string
	// Objects is the number of objects it rendered.
	Objects int
	// What says what was rendered, for the message ("directory apps/web").
	What string
	// Err says why the app could not be rendered; Skipped that a part of
	// it could not be rendered here (a chart out of reach offline), so an
	// empty render says nothing (neither is "renders nothing").
	Err     string
	Skipped bool
}

// Apps reports RG0009 for every app that could not be rendered and RG0007
// for every app that rendered no objects.
type Apps struct{ Apps []App }

func (Apps) Metadata() analysis.Metadata {
	return analysis.Metadata{Name: "coverage.Apps", Description: "Apps that do not render, or render no objects."}
}

func (e Apps) Analyze(_ context.Context, c *analysis.Context) error {
	for _, a := range e.Apps {
		if a.Err != "" {
			c.Report(analysis.Finding{Code: analysis.CodeAppNotRendered, Object: a.Object, Source: a.Source, App: a.Name,
				Message: "does not render: " + a.Err})
			continue
		}
		if a.Objects > 0 || a.Skipped {
			continue
		}
		c.Report(analysis.Finding{Code: analysis.CodeRendersNothing, Object: a.Object, Source: a.Source, App: a.Name,
			Message: fmt.Sprintf("renders no objects (%s): the reconciler would apply nothing, and routeguard had nothing to check; "+
				"check the source path, include/exclude globs and file extensions", a.What)})
	}
	return nil
}

// NothingChecked reports RG0100 about Object when the analyzed set holds
// no routing object.
type NothingChecked struct {
	Object analysis.ObjectRef
	Source manifest.Source
	// What names what was analyzed, for the message ("cluster in-cluster
	// (12 Applications, 340 objects)").
	What string
	// Holding names the parts that were not rendered (or rendered partly)
	// and hold routing, each with what it holds: then RG0100 is an error
	// (none of it was checked). Without any, the run's inputs hold no
	// routing that routeguard could see, and RG0100 is an info.
	Holding []string
	// NotRendered counts the parts that were not rendered, for the message.
	NotRendered int
}

// Kinds are the kinds whose presence means routing was checked.
var Kinds = routing.Checked

func (NothingChecked) Metadata() analysis.Metadata {
	return analysis.Metadata{Name: "coverage.NothingChecked", Description: "Runs that render no routing object.", Inputs: Kinds}
}

func (n NothingChecked) Analyze(_ context.Context, c *analysis.Context) error {
	if Routing(c.Objects()) > 0 {
		return nil
	}
	unchecked := ""
	if u := routing.UncheckedIn(c.Objects()); u != "" {
		unchecked = " (it holds " + u + ", which routeguard does not check)"
	}
	f := analysis.Finding{Code: analysis.CodeNothingChecked, Object: n.Object, Source: n.Source}
	fill := func(verdict string) analysis.Finding { return f.Fill(n.What, unchecked, verdict) }
	if len(n.Holding) > 0 {
		shown := n.Holding
		if len(shown) > 5 {
			shown = append(append([]string(nil), shown[:5]...), fmt.Sprintf("and %d more", len(n.Holding)-5))
		}
		c.Report(fill(fmt.Sprintf("while %d of the parts that were not rendered hold routing: %s; none of it was checked, so a clean result here means nothing", len(n.Holding), strings.Join(shown, "; "))))
		return nil
	}
	if unchecked != "" {
		// It routes, through kinds routeguard does not check: said so.
		f.Severity = analysis.SeverityWarning
		c.Report(fill("so its routing was not checked"))
		return nil
	}
	verdict := "and nothing it was rendered from holds routing as far as this repository shows"
	if n.NotRendered > 0 {
		verdict += fmt.Sprintf(" (%d parts were not rendered: what other repositories or charts hold is not known here)", n.NotRendered)
	}
	f.Severity = analysis.SeverityInfo
	c.Report(fill(verdict + ": it routes nothing that routeguard can see, so there was nothing to check"))
	return nil
}

// Routing counts the routing objects of set.
func Routing(set *manifest.Set) int {
	n := 0
	for _, gk := range Kinds {
		n += len(set.ByKind(gk.Group, gk.Kind))
	}
	return n
}
