package progress

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/routeguard/routeguard/internal/printable"
)

// Options configure a Meter.
type Options struct {
	// Mode says when progress is shown (Auto: on a terminal only).
	Mode Mode
	// Command names the run at the start of every line ("flux build").
	Command string
	// Now is the clock of the elapsed time in the summary (nil: time.Now).
	Now func() time.Time
}

// Meter shows a run's progress on w. A Meter that is off (not a terminal,
// Mode Never, or nil) writes nothing at all. It is safe for concurrent
// use: builds run in parallel and report as they finish.
type Meter struct {
	w       io.Writer
	on      bool
	live    bool // rewrite one line (a terminal) rather than print lines
	width   int
	command string
	now     func() time.Time
	start   time.Time

	mu         sync.Mutex
	drawn      bool // a live line is on the screen
	groups     []*group
	found      *[3]int // errors, warnings, infos
	foundLabel string
}

// group is the items of one phase ("base main", "head"), or of the whole
// run when it has no phases.
type group struct {
	name   string
	total  int
	done   int
	kinds  []string            // in order of first appearance
	counts map[string][]string // kind -> statuses in order of first appearance
	by     map[string]int      // kind+"\x00"+status -> count
	items  map[string]int      // kind -> items
	seen   map[string]string   // kind+"\x00"+name -> last status
}

// New returns the Meter of w. With Mode Auto it is on only when w (or the
// file under it) is a terminal.
func New(w io.Writer, o Options) *Meter {
	isTerm, width := Terminal(w)
	m := &Meter{w: w, command: o.Command, now: o.Now, width: width}
	if m.now == nil {
		m.now = time.Now
	}
	switch o.Mode {
	case Always:
		m.on = true
	case Auto:
		m.on = isTerm
	}
	m.live = m.on && isTerm
	if m.width <= 0 {
		m.width = 80
	}
	m.start = m.now()
	return m
}

// On says whether the Meter shows anything.
func (m *Meter) On() bool { return m != nil && m.on }

// Phase starts a group of items counted apart in the summary, e.g. a
// revision of a diff ("base main (1a2b3c4)"). Phases may run at once (a
// diff builds both revisions in parallel): each item names its phase.
// On a Meter that is off it returns nil, whose methods do nothing.
func (m *Meter) Phase(name string) *Phase {
	if !m.On() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g := newGroup(name)
	m.groups = append(m.groups, g)
	m.show(fmt.Sprintf("%s…", printable.Line(name)))
	return &Phase{m: m, g: g}
}

// Total says how many items the run has (0: not known), for a Meter
// without phases.
func (m *Meter) Total(n int) { m.defaultPhase().Total(n) }

// Done records one finished item of a Meter without phases.
func (m *Meter) Done(kind, name, status string) { m.defaultPhase().Done(kind, name, status) }

func (m *Meter) defaultPhase() *Phase {
	if !m.On() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.groups) == 0 || m.groups[0].name != "" {
		m.groups = append([]*group{newGroup("")}, m.groups...)
	}
	return &Phase{m: m, g: m.groups[0]}
}

// Phase is one group of items of a Meter.
type Phase struct {
	m *Meter
	g *group
}

// Total says how many items the phase has (0: not known).
func (p *Phase) Total(n int) {
	if p == nil {
		return
	}
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	p.g.total = n
}

// Done records one finished item: its kind ("Application"), name and
// outcome ("rendered", "skipped", "not buildable").
func (p *Phase) Done(kind, name, status string) {
	if p == nil {
		return
	}
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	g := p.g
	g.add(kind, name, status)
	count := fmt.Sprint(g.done)
	if g.total > 0 {
		count = fmt.Sprintf("%d/%d", g.done, g.total)
	}
	line := fmt.Sprintf("[%s] %s %s %s", count, kind, printable.Line(printable.Cut(name, 500)), status)
	if g.name != "" {
		line = printable.Line(g.name) + ": " + line
	}
	p.m.show(line)
}

// Findings records the findings of the run by severity, for the summary,
// under label ("" is "findings"; a diff says "findings introduced").
func (m *Meter) Findings(label string, errors, warnings, infos int) {
	if !m.On() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.found = &[3]int{errors, warnings, infos}
	m.foundLabel = label
	if label == "" {
		m.foundLabel = "findings"
	}
}

// Clear takes the progress line off the screen, so that what the command
// prints next (its own summary, notices) starts on a clean line; a later
// item draws it again. Finish clears it too.
func (m *Meter) Clear() {
	if !m.On() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drawn {
		io.WriteString(m.w, "\x1b[K\r")
		m.drawn = false
	}
}

// Finish clears the progress line and prints the summary: per phase the
// items by kind and outcome, then the findings by severity and the time
// the run took. Call it once, when the run's work is done and before its
// report is printed.
func (m *Meter) Finish() {
	if !m.On() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	if m.drawn {
		b.WriteString("\x1b[K")
		m.drawn = false
	}
	var parts []string
	for _, g := range m.groups {
		if s := g.summary(); s != "" {
			parts = append(parts, s)
		}
	}
	if m.found != nil {
		parts = append(parts, fmt.Sprintf("%s: %s, %s, %s", m.foundLabel, plural(m.found[0], "error"), plural(m.found[1], "warning"), plural(m.found[2], "info")))
	}
	parts = append(parts, fmt.Sprintf("done in %s", m.now().Sub(m.start).Round(time.Millisecond)))
	fmt.Fprintf(&b, "%s%s\n", m.prefix(), strings.Join(parts, "; "))
	io.WriteString(m.w, b.String())
}

// show writes line: in place on a terminal, else as a line of its own.
func (m *Meter) show(line string) {
	line = m.prefix() + line
	if !m.live {
		io.WriteString(m.w, line+"\n")
		return
	}
	// Cut to the terminal's width: a line that wraps cannot be rewritten.
	if utf8.RuneCountInString(line) > m.width-1 {
		r := []rune(line)
		line = string(r[:max(m.width-2, 1)]) + "…"
	}
	// Clear to the end of the line, write, return to its start: the next
	// line, whoever writes it, starts at column 0 over this one (and a
	// line-buffered writer passes it on at once, as it ends in "\r").
	io.WriteString(m.w, "\x1b[K"+line+"\r")
	m.drawn = true
}

func (m *Meter) prefix() string {
	if m.command == "" {
		return "routeguard: "
	}
	return "routeguard: " + m.command + ": "
}

func newGroup(name string) *group {
	return &group{name: name, counts: map[string][]string{}, by: map[string]int{}, items: map[string]int{}, seen: map[string]string{}}
}

// add counts an item; an item done again (an Application rendered anew
// once its parent is known) counts once, with its last outcome.
func (g *group) add(kind, name, status string) {
	item := kind + "\x00" + name
	if prev, again := g.seen[item]; again {
		g.by[kind+"\x00"+prev]--
	} else {
		g.done++
		if _, ok := g.items[kind]; !ok {
			g.kinds = append(g.kinds, kind)
		}
		g.items[kind]++
	}
	g.seen[item] = status
	key := kind + "\x00" + status
	if !slices.Contains(g.counts[kind], status) {
		g.counts[kind] = append(g.counts[kind], status)
	}
	g.by[key]++
}

// summary is "base main: 3 Applications (2 rendered, 1 skipped)".
func (g *group) summary() string {
	var kinds []string
	for _, k := range g.kinds {
		var st []string
		for _, s := range g.counts[k] {
			if n := g.by[k+"\x00"+s]; n > 0 {
				st = append(st, fmt.Sprintf("%d %s", n, s))
			}
		}
		kinds = append(kinds, fmt.Sprintf("%s (%s)", plural(g.items[k], k), strings.Join(st, ", ")))
	}
	s := strings.Join(kinds, ", ")
	if g.name == "" {
		return s
	}
	if s == "" {
		s = "nothing built"
	}
	return printable.Line(g.name) + ": " + s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "s") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
