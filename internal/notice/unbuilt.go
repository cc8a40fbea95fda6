package notice

import (
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// Unbuilt is a part of the input that a front door could not build, or
// built only partly: a Flux Kustomization, HelmRelease or ResourceSet, an
// Argo CD Application, an app path. Reviews and summaries say what each
// left unchecked, so that a clean result is never read as a full check.
type Unbuilt struct {
	// What names it: "Kustomization flux-system/apps", "Application
	// argocd/web", "path apps/shop".
	What string `json:"what"`
	// Where is the file:line that declares it.
	Where string `json:"where,omitempty"`
	// Why says why it was not built (or what it was built without).
	Why string `json:"why"`
	// Partly: it was built, without some of its parts.
	Partly bool `json:"partly,omitempty"`
	// RoutingFiles are what it holds of routing, as far as the repository
	// shows it (files with routing objects, routing values): none of that
	// was checked (for a partly built part: what it was built without).
	RoutingFiles []string `json:"routingFiles,omitempty"`
	// ChartNotFetched: it was not built because its chart (or the chart's
	// dependencies) is in a chart repository and was not fetched (no
	// --fetch-charts, not in --chart-cache, or the fetch failed).
	ChartNotFetched bool `json:"chartNotFetched,omitempty"`
}

// maxUnbuiltChars caps each name, place, reason and file of a line of
// WriteUnbuilt (printable.Cut: the rest counted); an Application's name or
// path comes from the repository and can be 30,000 characters.
const maxUnbuiltChars = 300

// WriteUnbuilt says, one line per part that holds routing, what went
// unchecked ("routeguard: not built: Kustomization x/y (file:line): why;
// the routing it holds was not checked: a.yaml, b.yaml"), at most limit
// lines (0: all) and then how many more there are (flux build --verbose
// lists them all).
func WriteUnbuilt(w io.Writer, us []Unbuilt, limit int) {
	shown, holding := 0, 0
	for _, u := range us {
		if len(u.RoutingFiles) == 0 {
			continue
		}
		holding++
		if limit > 0 && shown == limit {
			continue
		}
		shown++
		state := "not built"
		if u.Partly {
			state = "built partly"
		}
		files := u.RoutingFiles
		more := ""
		if len(files) > 10 {
			files, more = files[:10], fmt.Sprintf(" and %d more", len(u.RoutingFiles)-10)
		}
		cut := make([]string, len(files))
		for i, f := range files {
			cut[i] = printable.Cut(f, maxUnbuiltChars)
		}
		fmt.Fprintf(w, "routeguard: %s: %s (%s): %s; the routing it holds was not checked: %s%s\n", state,
			printable.Line(printable.Cut(u.What, maxUnbuiltChars)), printable.Line(printable.Cut(u.Where, maxUnbuiltChars)),
			printable.Line(printable.Cut(u.Why, maxUnbuiltChars)), printable.Line(strings.Join(cut, ", ")), more)
	}
	if holding > shown {
		fmt.Fprintf(w, "routeguard: ... and %d more parts not built that hold routing (the JSON reports of the diff commands list them all)\n", holding-shown)
	}
	if s := ChartsNotFetched(us); s.Parts > 0 {
		fmt.Fprintf(w, "routeguard: %s\n", s)
	}
}

// ChartsNotFetchedSummary counts the parts not built because their charts
// were not fetched, and the routing they hold.
type ChartsNotFetchedSummary struct {
	Parts   int // parts not built for want of a chart
	Holding int // of them, the ones that hold routing
	Routing int // the routing files and values they hold, none of it checked
}

// ChartsNotFetched counts the parts of us not built because their charts
// were not fetched.
func ChartsNotFetched(us []Unbuilt) ChartsNotFetchedSummary {
	var s ChartsNotFetchedSummary
	for _, u := range us {
		if !u.ChartNotFetched {
			continue
		}
		s.Parts++
		if len(u.RoutingFiles) > 0 {
			s.Holding++
			s.Routing += len(u.RoutingFiles)
		}
	}
	return s
}

// String says it in one line: "3 HelmReleases or Helm sources not
// rendered because their charts were not fetched: 2 of them hold routing,
// 4 routing files or values not checked; pass --fetch-charts ...".
func (s ChartsNotFetchedSummary) String() string {
	text := fmt.Sprintf("%d HelmReleases or Helm sources not rendered because their charts were not fetched", s.Parts)
	if s.Holding > 0 {
		text += fmt.Sprintf(": %d of them hold routing, %d routing files or values not checked", s.Holding, s.Routing)
	} else {
		text += " (none holds routing values or templates this repository shows)"
	}
	return text + "; pass --fetch-charts (and --chart-cache DIR to keep them), or see why the fetch failed above"
}
