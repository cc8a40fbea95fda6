package project

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/gobwas/glob"
)

// globMatch is Argo CD's util/glob.Match: a pattern that does not compile
// matches nothing.
func globMatch(pattern, text string, separators ...rune) bool {
	g, err := glob.Compile(pattern, separators...)
	if err != nil {
		return false
	}
	return g.Match(text)
}

// projectGlob is the AppProject's globMatch (app_project_types.go): with
// allowNegation, "!pattern" matches what pattern does not; "*" matches
// everything, the empty string included.
func projectGlob(pattern, val string, allowNegation bool, separators ...rune) bool {
	if allowNegation && isDenyPattern(pattern) {
		return !globMatch(pattern[1:], val, separators...)
	}
	if pattern == "*" {
		return true
	}
	return globMatch(pattern, val, separators...)
}

func isDenyPattern(pattern string) bool { return strings.HasPrefix(pattern, "!") }

// kindMatch is path/filepath.Match as isResourceInList uses it: a bad
// pattern matches nothing.
func kindMatch(pattern, val string) bool {
	ok, err := filepath.Match(pattern, val)
	return ok && err == nil
}

var sshURL = regexp.MustCompile("^(ssh://)?([^/:]*?)@[^@]+$")

// normalizeGitURL is Argo CD's util/git.NormalizeGitURL: lower-cased,
// scp-like SSH URLs rewritten as ssh://, ".git" dropped, then net/url's
// form without the ssh:// scheme; "" for a URL net/url refuses.
func normalizeGitURL(repo string) string {
	repo = strings.ToLower(strings.TrimSpace(repo))
	if m := sshURL.FindStringSubmatch(repo); len(m) > 2 {
		if !strings.HasPrefix(repo, "ssh://") {
			repo = strings.Replace(repo, ":", "/", 1)
			repo = "ssh://" + repo
		}
	}
	repo = strings.TrimSuffix(repo, ".git")
	u, err := url.Parse(repo)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.String(), "ssh://")
}

// matchStringInList is util/glob.MatchStringInList in its REGEXP mode: an
// entry written /like this/ is a regular expression (regexp2, as Argo CD's
// util/regex), any other a glob.
func matchStringInList(list []string, item string) (int, bool) {
	for i, ll := range list {
		if len(ll) > 2 && strings.HasPrefix(ll, "/") && strings.HasSuffix(ll, "/") && regexMatch(ll[1:len(ll)-1], item) {
			return i, true
		}
		if globMatch(ll, item) {
			return i, true
		}
	}
	return -1, false
}

func regexMatch(pattern, text string) bool {
	re, err := regexp2.Compile(pattern, 0)
	if err != nil {
		return false
	}
	ok, err := re.MatchString(text)
	return ok && err == nil
}
