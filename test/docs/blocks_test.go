package docs

import (
	"strings"
	"testing"
)

var subs = []string{"analyze", "flux", "health"}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name, page string
		kind       Kind
		steps      []Step
	}{
		{"transcript", "```\n$ routeguard analyze x\nout 1\nout 2\n\n$ routeguard flux build y\n```\n", Runnable,
			[]Step{{Command: "routeguard analyze x", Output: []string{"out 1", "out 2"}}, {Command: "routeguard flux build y", Output: []string{}}}},
		{"exit of the last command", "<!-- doctest: exit 1 -->\n```\n$ sed -i s/a/b/ f\n$ routeguard analyze x\nboom\n```\n", Runnable,
			[]Step{{Command: "sed -i s/a/b/ f", Output: []string{}}, {Command: "routeguard analyze x", Output: []string{"boom"}, Exit: 1}}},
		{"command block", "```sh\n# comment\nrouteguard analyze x   # why\ncat f | routeguard analyze -\n```\n", Runnable,
			[]Step{{Command: "routeguard analyze x   # why"}, {Command: "cat f | routeguard analyze -"}}},
		{"run marker", "<!-- doctest: run routeguard health check f -->\n```\nHTTPRoute a/b\n```\n", Runnable,
			[]Step{{Command: "routeguard health check f", Output: []string{"HTTPRoute a/b"}}}},
		{"another tool in a command block", "```sh\nrouteguard analyze x\nhelm upgrade y\n```\n", Unmarked, nil},
		{"output without its command", "```\napp.yaml:3: error RG1101 HTTPRoute a/b: no\n```\n", Unmarked, nil},
		{"a summary line", "```\nrouteguard: flux build: built 2 Kustomizations\n```\n", Unmarked, nil},
		{"a CI snippet naming a command", "```yaml\nrun: routeguard flux build --all .\n```\n", Unmarked, nil},
		{"skipped", "<!-- doctest: skip needs a cluster -->\n```sh\nkubectl get x | routeguard health check -\n```\n", Skipped, nil},
		{"not about routeguard", "```sh\nmake test\n```\n", Ignored, nil},
		{"a path is not a command", "```sh\nmake build && ROUTEGUARD_BIN=bin/routeguard go test ./x\n```\n", Ignored, nil},
		{"yaml config", "```yaml\nfailOn: error # RG4002\n```\n", Ignored, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks, err := Parse("p.md", tc.page)
			if err != nil || len(blocks) != 1 {
				t.Fatalf("Parse: %d blocks, %v", len(blocks), err)
			}
			kind, steps, err := Plan(blocks[0], subs)
			if err != nil {
				t.Fatal(err)
			}
			if kind != tc.kind || !sameSteps(steps, tc.steps) {
				t.Errorf("Plan: kind %d, steps %#v; want kind %d, steps %#v", kind, steps, tc.kind, tc.steps)
			}
		})
	}
}

func sameSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Command != b[i].Command || a[i].Exit != b[i].Exit || (a[i].Output == nil) != (b[i].Output == nil) ||
			strings.Join(a[i].Output, "\n") != strings.Join(b[i].Output, "\n") {
			return false
		}
	}
	return true
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ page, want string }{
		{"<!-- doctest: skip -->\n```\nx\n```\n", "p.md:1: doctest skip needs a reason"},
		{"<!-- doctest: exit one -->\n```\nx\n```\n", "p.md:1: doctest exit needs an exit code"},
		{"<!-- doctest: ignore this -->\n```\nx\n```\n", `p.md:1: unknown doctest marker "ignore this"`},
		{"<!-- doctest: skip why -->\n\ntext\n```\nx\n```\n", "p.md:1: doctest marker not right above"},
		{"text\n<!-- doctest: skip why -->\n", "p.md:2: doctest marker not right above"},
		{"```sh\nrouteguard analyze\n", "p.md: the code block opened at line 1 is not closed"},
		{"<!-- doctest:\nskip why -->\n```\nx\n```\n", "p.md:1: a doctest marker is one line"},
	} {
		_, err := Parse("p.md", tc.page)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v; want an error with %q", tc.page, err, tc.want)
		}
	}
}

func TestParseIndentedAndLines(t *testing.T) {
	blocks, err := Parse("p.md", "# t\n\n1. step\n\n   ```yaml\n   a: 1\n     b: 2\n   ```\n\n```\n$ routeguard analyze\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Line != 5 || blocks[0].Lang != "yaml" || strings.Join(blocks[0].Lines, "|") != "a: 1|  b: 2" || blocks[1].Line != 10 {
		t.Fatalf("blocks %#v", blocks)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb\n", true},
		{"a\nb", "a\nb\nc", false},
		{"a\nb", "a", false},
		{"a  \nb", "a\nb  ", true},
		{"x: ... end", "x: anything at all end", true},
		{"x: ... end", "x: anything at all", false},
		{"x ... y ... z", "x 1 y 2 y 3 z", true},
		{"x ... y ... z", "x 1 z 2 y", false},
		{"main (...) → tree", "main (250242e87357) → tree", true},
		{"first\n...\nlast", "first\n1\n2\nlast", true},
		{"first\n...\nlast", "first\nlast", true},
		{"first\n...\nlast", "first\n1\n2", false},
		{"first\n...", "first\nrest", true},
		{"first\n...", "other\nrest", false},
		{"......", "anything", true},
	} {
		if got := Match(strings.Split(tc.want, "\n"), strings.Split(tc.got, "\n")); got != tc.ok {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}
