package codeowners

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/routeguard/routeguard/internal/confine"
)

// Syntax is the host whose rules apply.
type Syntax string

const (
	GitHub Syntax = "github"
	GitLab Syntax = "gitlab"
)

// maxBytes caps the file (GitHub ignores a CODEOWNERS file over 3 MB).
const maxBytes = 3 << 20

// Locations lists where each host looks, in order.
var Locations = map[Syntax][]string{
	GitHub: {".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"},
	GitLab: {"CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS"},
}

// AllLocations are every host's locations, in Find's order without a
// syntax.
var AllLocations = []string{".github/CODEOWNERS", ".gitlab/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// File is a parsed CODEOWNERS file.
type File struct {
	Path   string // repository-relative
	Syntax Syntax
	rules  []rule
}

type rule struct {
	section  string // GitLab: the section's name ("" before any)
	optional bool
	pattern  string
	line     int
	owners   []string
}

// Entry is the line of a CODEOWNERS file that covers a path.
type Entry struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Pattern  string   `json:"pattern"`
	Section  string   `json:"section,omitempty"`
	Optional bool     `json:"optional,omitempty"`
	Owners   []string `json:"owners"`
}

// String renders the entry as file:line pattern @owners.
func (e Entry) String() string {
	s := fmt.Sprintf("%s:%d %s", e.File, e.Line, e.Pattern)
	if e.Section != "" {
		s = fmt.Sprintf("%s:%d [%s] %s", e.File, e.Line, e.Section, e.Pattern)
		if e.Optional {
			s = fmt.Sprintf("%s:%d ^[%s] %s", e.File, e.Line, e.Section, e.Pattern)
		}
	}
	if len(e.Owners) == 0 {
		return s + " (no owners)"
	}
	return s + " " + strings.Join(e.Owners, " ")
}

// Find reads the CODEOWNERS file of the repository at root for syntax
// ("" picks the host by the file: GitHub's .github/CODEOWNERS, GitLab's
// .gitlab/CODEOWNERS or a file with sections, else GitHub). It returns nil
// when there is none.
func Find(cr *confine.Root, syntax Syntax) (*File, error) {
	order := Locations[syntax]
	if syntax == "" {
		order = AllLocations
	}
	for _, rel := range order {
		abs := filepath.Join(cr.Dir(), filepath.FromSlash(rel))
		if !cr.Exists(abs) {
			continue
		}
		data, err := cr.ReadFile(abs, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		s := syntax
		if s == "" {
			s = GitHub
			if strings.HasPrefix(rel, ".gitlab/") || sectionRE.Match(data) {
				s = GitLab
			}
		}
		return Parse(rel, data, s), nil
	}
	return nil, nil
}

var sectionRE = regexp.MustCompile(`(?m)^\s*\^?\[[^\]]+\](\[\d+\])?(\s|$)`)

// Parse reads the lines of a CODEOWNERS file.
func Parse(file string, data []byte, syntax Syntax) *File {
	f := &File{Path: file, Syntax: syntax}
	section, optional := "", false
	var defaults []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if syntax == GitLab && sectionRE.MatchString(line) {
			optional = strings.HasPrefix(line, "^")
			head := strings.TrimPrefix(line, "^")
			end := strings.Index(head, "]")
			section = strings.TrimSpace(head[1:end])
			rest := head[end+1:]
			if strings.HasPrefix(rest, "[") {
				if e := strings.Index(rest, "]"); e >= 0 {
					rest = rest[e+1:]
				}
			}
			defaults = fields(rest)
			continue
		}
		pattern, rest := splitPattern(line)
		if pattern == "" {
			continue
		}
		owners := fields(rest)
		if syntax == GitLab && len(owners) == 0 {
			owners = defaults
		}
		f.rules = append(f.rules, rule{section: section, optional: optional, pattern: pattern, line: n, owners: owners})
	}
	return f
}

// splitPattern cuts a line into its pattern ("\ " escapes a space, "\#" a
// hash) and the rest.
func splitPattern(line string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			b.WriteByte(line[i+1])
			i++
		case c == ' ' || c == '\t':
			return b.String(), line[i:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// fields are the owners: words up to a comment.
func fields(s string) []string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		return nil
	}
	return strings.Fields(s)
}

// Owners returns the entries that cover file (a repository-relative slash
// path): GitHub's last match, or GitLab's last match of each section, in
// the order the sections first appear.
func (f *File) Owners(file string) []Entry {
	if f == nil {
		return nil
	}
	file = strings.TrimPrefix(path.Clean("/"+file), "/")
	last := map[string]int{} // section (lower case) -> rule index
	var order []string
	for i, r := range f.rules {
		key := strings.ToLower(r.section)
		if f.Syntax == GitHub {
			key = ""
		}
		if _, seen := last[key]; !seen {
			order = append(order, key)
			last[key] = -1
		}
		if matches(r.pattern, file) {
			last[key] = i
		}
	}
	var out []Entry
	for _, key := range order {
		i := last[key]
		if i < 0 {
			continue
		}
		r := f.rules[i]
		out = append(out, Entry{File: f.Path, Line: r.line, Pattern: r.pattern, Section: r.section, Optional: r.optional, Owners: r.owners})
	}
	return out
}

// matches applies a gitignore-like pattern to a file: with a "/" before
// its end it is anchored at the root, else it matches a name at any depth;
// a trailing "/" matches directories only; a pattern whose last part has
// no wildcard matches a directory and so everything in it, one whose last
// part has a wildcard matches only what it names ("docs/*" covers
// docs/a.md, not docs/b/c.md, as GitHub documents).
func matches(pattern, file string) bool {
	dirOnly := strings.HasSuffix(pattern, "/")
	p := strings.TrimSuffix(pattern, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return false
	}
	if p == "*" && !dirOnly {
		return true
	}
	parts := strings.Split(file, "/")
	coversDirs := !strings.ContainsAny(p[strings.LastIndex(p, "/")+1:], "*?[") || dirOnly
	for end := len(parts); end >= 1; end-- {
		if dirOnly && end == len(parts) {
			continue // the file itself is not a directory
		}
		if end < len(parts) && !coversDirs {
			break
		}
		if anchored {
			if ok, _ := doublestar.Match(p, strings.Join(parts[:end], "/")); ok {
				return true
			}
			continue
		}
		if ok, _ := doublestar.Match(p, parts[end-1]); ok {
			return true
		}
	}
	return false
}
