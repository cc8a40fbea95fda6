// Package docs runs the commands that README.md, docs/*.md and the READMEs
// of examples/ show, through the built binary, and compares what they print
// with what the page shows, so that a page cannot drift from the code
// without failing `make test`.
//
// The convention (docs/contributing.md, "Commands in the docs"):
//
//   - A fenced block whose lines start with "$ " is a transcript: each "$ "
//     line is a command (a trailing "\" continues it), the lines under it,
//     up to the next "$ " line, are what it prints: its stdout, then its
//     stderr (the report, then the notes and the summary; "> FILE" in the
//     command sends stdout to a file instead).
//   - A sh, shell, bash, console or unlabelled block whose lines (other than
//     blank and "#" lines) all run routeguard is a command block: each line
//     runs, and must exit 0; nothing is compared.
//   - A block can carry markers, HTML comments on the lines right above its
//     opening fence (invisible on the rendered page):
//     <!-- doctest: skip REASON --> the block is not run (a cluster, the
//     network, another tool, an illustrative repository); the reason is
//     required and the test lists and counts the skipped blocks;
//     <!-- doctest: run COMMAND --> the block is the output of COMMAND;
//     <!-- doctest: exit N --> the block's last command exits N (the others
//     still exit 0).
//   - In expected output, "..." stands for any text within a line, and a
//     line of only "..." for any number of lines (the output goes on, or a
//     part left out). Nothing else is normalised: a page shows no timings,
//     or hides them behind "...".
//   - Every command runs with /bin/sh in a fresh copy of examples/ (a git
//     repository whose branch main holds it), plus any file or directory of
//     the repository a command names, with routeguard and routeguard-istio
//     first on PATH, HOME a temporary directory and no other environment.
//   - A block that names a routeguard command (or shows routeguard's output:
//     a finding code, a "routeguard:" line) and is neither run nor marked
//     fails the test, so a new page cannot skip the check silently.
//
// docs/cli.md is generated from the command tree (internal/docgen) and
// tested there; it is not read here.
package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Block is one fenced code block of a Markdown page.
type Block struct {
	File  string   // the page, relative to the repository root
	Line  int      // the line of the opening fence (1-based)
	Lang  string   // the info string's first word ("" when none)
	Lines []string // the body, without the fence's indentation
	Mark  Marks    // the doctest markers above the fence
}

// Marks are the doctest markers of one block.
type Marks struct {
	Skip string // the reason the block is not run ("" when it is)
	Run  string // the command whose output the block is ("" when none)
	Exit *int   // the exit code of the block's last command (nil: 0)
}

func (b Block) String() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

var (
	fence  = regexp.MustCompile("^( *)```+\\s*([^`\\s]*)")
	marker = regexp.MustCompile(`^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$`)
)

// Parse returns the fenced blocks of one page. A doctest marker that is not
// right above a fence, an unknown or malformed marker, and a fence left
// open are errors naming the line.
func Parse(file, text string) ([]Block, error) {
	lines := strings.Split(text, "\n")
	var blocks []Block
	var pending Marks
	pendingLine := 0
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := marker.FindStringSubmatch(line); m != nil {
			if err := pending.add(m[1]); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, i+1, err)
			}
			if pendingLine == 0 {
				pendingLine = i + 1
			}
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "<!-- doctest") || strings.HasPrefix(t, "<!--doctest") {
			return nil, fmt.Errorf("%s:%d: a doctest marker is one line: <!-- doctest: skip REASON|run COMMAND|exit N -->", file, i+1)
		}
		m := fence.FindStringSubmatch(line)
		if m == nil {
			if pendingLine != 0 {
				return nil, fmt.Errorf("%s:%d: doctest marker not right above a code block's opening fence", file, pendingLine)
			}
			continue
		}
		b := Block{File: file, Line: i + 1, Lang: m[2], Mark: pending}
		pending, pendingLine = Marks{}, 0
		indent := len(m[1])
		closed := false
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != "" && strings.Trim(strings.TrimSpace(lines[i]), "`") == "" {
				closed = true
				break
			}
			l := lines[i]
			if len(l)-len(strings.TrimLeft(l, " ")) >= indent {
				l = l[indent:]
			} else {
				l = strings.TrimLeft(l, " ")
			}
			b.Lines = append(b.Lines, l)
		}
		if !closed {
			return nil, fmt.Errorf("%s: the code block opened at line %d is not closed", file, b.Line)
		}
		blocks = append(blocks, b)
	}
	if pendingLine != 0 {
		return nil, fmt.Errorf("%s:%d: doctest marker not right above a code block's opening fence", file, pendingLine)
	}
	return blocks, nil
}

func (m *Marks) add(directive string) error {
	verb, arg, _ := strings.Cut(directive, " ")
	arg = strings.TrimSpace(arg)
	switch verb {
	case "skip":
		if arg == "" {
			return fmt.Errorf("doctest skip needs a reason: <!-- doctest: skip REASON -->")
		}
		m.Skip = arg
	case "run":
		if arg == "" {
			return fmt.Errorf("doctest run needs a command: <!-- doctest: run COMMAND -->")
		}
		m.Run = arg
	case "exit":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 || n > 255 {
			return fmt.Errorf("doctest exit needs an exit code (0-255), got %q", arg)
		}
		m.Exit = &n
	default:
		return fmt.Errorf("unknown doctest marker %q: want skip REASON, run COMMAND or exit N", directive)
	}
	return nil
}

// Step is one command of a block and what the page says it prints.
type Step struct {
	Command string
	// Output is the expected output; nil when the page shows none (then
	// only the exit code is checked).
	Output []string
	Exit   int
}

// Kind says what the test does with a block.
type Kind int

const (
	Ignored  Kind = iota // names no routeguard command: not the doc test's business
	Runnable             // its Steps run
	Skipped              // marked skip
	Unmarked             // names routeguard but can neither run nor is marked: an error
)

var shellLangs = map[string]bool{"": true, "sh": true, "shell": true, "bash": true, "console": true, "text": true}

// Plan classifies a block and returns its steps. subcommands are the names
// routeguard's --help lists (a block "names routeguard" when it holds
// "routeguard SUBCOMMAND").
func Plan(b Block, subcommands []string) (Kind, []Step, error) {
	if b.Mark.Skip != "" {
		if b.Mark.Run != "" || b.Mark.Exit != nil {
			return 0, nil, fmt.Errorf("%s: a skipped block carries no other doctest marker", b)
		}
		return Skipped, nil, nil
	}
	exit := 0
	if b.Mark.Exit != nil {
		exit = *b.Mark.Exit
	}
	if b.Mark.Run != "" {
		return Runnable, []Step{{Command: b.Mark.Run, Output: trimBlank(b.Lines), Exit: exit}}, nil
	}
	if steps := transcript(b.Lines); steps != nil {
		steps[len(steps)-1].Exit = exit
		return Runnable, steps, nil
	}
	names := namesRouteguard(b, subcommands)
	if shellLangs[b.Lang] && b.Lang != "text" {
		var steps []Step
		for _, l := range b.Lines {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			steps = append(steps, Step{Command: t})
		}
		if len(steps) > 0 && allRunRouteguard(steps) {
			steps[len(steps)-1].Exit = exit
			return Runnable, steps, nil
		}
	}
	if b.Mark.Exit != nil {
		return 0, nil, fmt.Errorf("%s: doctest exit on a block that runs nothing", b)
	}
	if names {
		return Unmarked, nil, nil
	}
	return Ignored, nil, nil
}

// transcript reads "$ command" lines and the output under each; nil when
// the block has no "$ " line or something comes before the first one.
func transcript(lines []string) []Step {
	var steps []Step
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "$ ") {
			cmd := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + "\n" + lines[i]
			}
			steps = append(steps, Step{Command: cmd, Output: []string{}})
			continue
		}
		if len(steps) == 0 {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil
		}
		last := &steps[len(steps)-1]
		last.Output = append(last.Output, l)
	}
	for i := range steps {
		steps[i].Output = trimBlank(steps[i].Output)
	}
	return steps
}

func trimBlank(lines []string) []string {
	out := append([]string{}, lines...)
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	return out
}

// commandWord finds routeguard in command position: at the start, or after
// a pipe, "&&", ";" or "(".
var commandWord = regexp.MustCompile(`(^|[|;&(]\s*)routeguard(\s|$)`)

func allRunRouteguard(steps []Step) bool {
	for _, s := range steps {
		if !commandWord.MatchString(s.Command) {
			return false
		}
	}
	return true
}

var (
	findingCode = regexp.MustCompile(`\b(RG|IST)\d{4}\b`)
	ownLine     = regexp.MustCompile(`(?m)^\s*routeguard( [a-z]+)*: `)
)

// namesRouteguard: the block holds "routeguard SUBCOMMAND" anywhere, or (in
// a shell or plain block) what routeguard prints: a finding code or a
// "routeguard: " line.
func namesRouteguard(b Block, subcommands []string) bool {
	text := strings.Join(b.Lines, "\n")
	for _, s := range subcommands {
		if regexp.MustCompile(`(^|[^-/\w])routeguard\s+` + regexp.QuoteMeta(s) + `\b`).MatchString(text) {
			return true
		}
	}
	return shellLangs[b.Lang] && (findingCode.MatchString(text) || ownLine.MatchString(text))
}
