package manifestdiff

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// Caps of the text output: at most maxTextLines diff lines in all, each
// line at most maxTextLine characters, each cut saying what it left out
// (-o json has every line).
const (
	maxTextLines = 20000
	maxTextLine  = 2000
)

// Summary is the review's one line: how many objects of how many apps
// differ, and what the filters hid.
func (r *Result) Summary() string {
	var b strings.Builder
	if !r.Changed() {
		b.WriteString("no manifest changes")
	} else {
		fmt.Fprintf(&b, "%s changed in %s", plural(r.Objects(), "object"), plural(len(r.Apps), "app"))
	}
	if r.FilteredOnly > 0 {
		fmt.Fprintf(&b, " (%s differing only in filtered fields not shown)", plural(r.FilteredOnly, "object"))
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return printable.Count(n) + " " + what + "s"
}

// objectLine is an object's line in every format: its header, what
// happened to it and its size.
func (o ObjectDiff) objectLine() string {
	s := o.Header() + " (" + string(o.Change)
	if o.RenamedFrom != "" {
		s += ", renamed from " + o.RenamedFrom
	}
	if o.MovedFrom != nil {
		s += ", moved from " + o.MovedFrom.String()
	}
	if o.OmittedLines > 0 {
		return s + ", diff of " + printable.Count(o.OmittedLines) + " lines omitted, too large)"
	}
	return fmt.Sprintf("%s, +%d -%d)", s, o.LinesAdded, o.LinesRemoved)
}

// maxFiltersShown is how many filters the summary names (every app's
// ignoreDifferences pointer is one; -o json has them all).
const maxFiltersShown = 8

// filtersLine says which filters removed something, and the Secrets
// redacted.
func (r *Result) filtersLine() string {
	var parts []string
	if len(r.Filters) > 0 {
		shown := r.Filters
		if len(shown) > maxFiltersShown {
			shown = append(slices.Clip(shown[:maxFiltersShown]), "… and "+printable.Count(len(r.Filters)-maxFiltersShown)+" more (-o json lists them)")
		}
		parts = append(parts, "filtered: "+strings.Join(shown, ", "))
	}
	if r.Redacted > 0 {
		parts = append(parts, plural(r.Redacted, "Secret")+" redacted (values shown as ++++++++; a changed value has a different count of +)")
	}
	return strings.Join(parts, "; ")
}

// WriteText writes the review for a terminal: per app, per object, its
// unified diff. Repository text is escaped (printable.Line) and no line
// can read as a CI runner's command (printable.Lines).
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Manifest diff: %s\n", r.Summary())
	if f := r.filtersLine(); f != "" {
		fmt.Fprintf(&b, "(%s)\n", printable.Line(f))
	}
	if nc := r.notComparedLine(); nc != "" {
		fmt.Fprintf(&b, "! %s\n", textLine(nc))
	}
	left := maxTextLines
	for ai, a := range r.Apps {
		fmt.Fprintf(&b, "\n=== %s\n", textLine(a.App.String()))
		for oi, o := range a.Objects {
			if left <= 0 {
				cutLines, cutObjects := r.rest(ai, oi)
				fmt.Fprintf(&b, "... %s more diff lines of %s cut (-o json has them all)\n", printable.Count(cutLines), plural(cutObjects, "object"))
				_, err := io.WriteString(w, printable.Lines(b.String()))
				return err
			}
			from, to := "base "+o.baseHeader(), "head "+o.Header()
			switch o.Change {
			case Added:
				from = "/dev/null"
			case Removed:
				to = "/dev/null"
			}
			fmt.Fprintf(&b, "--- %s\n+++ %s\n# %s\n", textLine(from), textLine(to), textLine(o.objectLine()))
			for _, h := range o.Hunks {
				b.WriteString(h.Header() + "\n")
				for _, l := range h.Lines {
					if left <= 0 {
						break
					}
					b.WriteString(textLine(l) + "\n")
					left--
				}
			}
		}
	}
	_, err := io.WriteString(w, printable.Lines(b.String()))
	return err
}

// baseHeader names the object at base (its name there, if renamed).
func (o ObjectDiff) baseHeader() string {
	if o.RenamedFrom == "" {
		return o.Header()
	}
	r := o
	r.Name = o.RenamedFrom
	return r.Header()
}

// notComparedLine says which apps' objects were not compared (nothing
// when none).
func (r *Result) notComparedLine() string {
	if len(r.NotCompared) == 0 {
		return ""
	}
	var parts []string
	objs := 0
	for i, nc := range r.NotCompared {
		objs += nc.Objects
		if i < 10 {
			parts = append(parts, nc.App.String()+" (not built at "+nc.Revision+")")
		}
	}
	if len(r.NotCompared) > 10 {
		parts = append(parts, "… and "+printable.Count(len(r.NotCompared)-10)+" more")
	}
	return fmt.Sprintf("%s not compared, their apps not built at one revision: %s", plural(objs, "object"), strings.Join(parts, ", "))
}

// rest counts the diff lines and objects from object oi of app ai on.
func (r *Result) rest(ai, oi int) (lines, objects int) {
	for i := ai; i < len(r.Apps); i++ {
		objs := r.Apps[i].Objects
		if i == ai {
			objs = objs[oi:]
		}
		for _, o := range objs {
			objects++
			for _, h := range o.Hunks {
				lines += len(h.Lines)
			}
		}
	}
	return lines, objects
}

func textLine(s string) string { return printable.Line(printable.Cut(s, maxTextLine)) }
