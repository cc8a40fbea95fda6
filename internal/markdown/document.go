package markdown

import (
	"fmt"
	"strings"
)

// GitHub refuses an issue or pull request comment (and a job summary) over
// 65,536 characters; GitLab a note over 1,000,000. A Document's budget
// counts bytes, never fewer than characters (UTF-8) or UTF-16 units, so a
// document within 65,536 bytes fits either.
const (
	GitHubLimit = 65536
	GitLabLimit = 1_000_000
)

// Section is one part of a Document, in levels of detail: At(0) is the
// fullest, At(Levels-1) the shortest, which must be short whatever the
// input (a title and a count of what it leaves out), so that every
// section is present or counted in any document.
type Section struct {
	Levels int
	At     func(level int) string
}

// Document is Markdown built to a hard budget: a head and a foot that are
// always there, with sections between them. Render starts every section at
// its fullest and, while the whole is over the budget, lowers sections one
// level at a time in rounds: in each round, from the least important
// section to the most important (Priority). The foot's room is reserved
// before any section is placed.
type Document struct {
	// Budget is the most bytes the document may take.
	Budget int
	// Head starts the document (the marker, the title, the summary).
	Head string
	// Foot ends it; shortened says whether a section was lowered.
	Foot func(shortened bool) string
	// Sections in the order they are written.
	Sections []Section
	// Priority lists the indexes of Sections, the most important first;
	// nil means the order they are written in. Sections not listed are
	// lowered first.
	Priority []int
}

// Render writes the document. It fails only when even the shortest levels
// do not fit the budget (the head or foot are too large for it).
func (d Document) Render() (string, error) {
	foot := func(bool) string { return "" }
	if d.Foot != nil {
		foot = d.Foot
	}
	size := len(d.Head) + max(len(foot(false)), len(foot(true)))
	levels := make([]int, len(d.Sections))
	texts := make([]string, len(d.Sections))
	for i, s := range d.Sections {
		texts[i] = s.At(0)
		size += len(texts[i])
	}
	for _, i := range d.order() {
		if size <= d.Budget {
			break
		}
		s := d.Sections[i]
		if levels[i] >= s.Levels-1 {
			continue
		}
		levels[i]++
		size -= len(texts[i])
		texts[i] = s.At(levels[i])
		size += len(texts[i])
	}
	if size > d.Budget {
		return "", fmt.Errorf("markdown: the document takes %d bytes even shortened, over its budget of %d", size, d.Budget)
	}
	shortened := false
	for _, l := range levels {
		shortened = shortened || l > 0
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(d.Head)
	for _, t := range texts {
		b.WriteString(t)
	}
	b.WriteString(foot(shortened))
	return b.String(), nil
}

// order is the sequence of sections to lower: rounds over the sections
// from the least important to the most, as many rounds as the section
// with the most levels needs.
func (d Document) order() []int {
	prio := d.Priority
	if prio == nil {
		prio = make([]int, len(d.Sections))
		for i := range prio {
			prio[i] = i
		}
	}
	listed := make([]bool, len(d.Sections))
	for _, i := range prio {
		listed[i] = true
	}
	var least []int // unlisted first, then the listed from the end
	for i := range d.Sections {
		if !listed[i] {
			least = append(least, i)
		}
	}
	for i := len(prio) - 1; i >= 0; i-- {
		least = append(least, prio[i])
	}
	rounds := 0
	for _, s := range d.Sections {
		rounds = max(rounds, s.Levels-1)
	}
	var out []int
	for range rounds {
		out = append(out, least...)
	}
	return out
}
