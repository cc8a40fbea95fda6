// Package markdown writes Markdown for pull request comments, merge
// request notes and job summaries from untrusted repository text: escaped
// so that nothing in it is markup (Text), shortened entry by entry (Cell),
// and assembled to a hard budget (Document) that GitHub's and GitLab's
// size limits cannot refuse.
package markdown

import (
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// zwsp is the zero-width space (as a character reference) written after
// the characters that would otherwise start a mention, an issue link or
// an autolink. GitHub and GitLab decode references before they look for
// those (their filters read the rendered text), so "&#64;user" would still
// notify @user; "@&#8203;user" does not match either's user pattern.
// Dependabot and Renovate neutralize mentions the same way.
const zwsp = "&#8203;"

// lineBreaks become spaces in Markdown text (a table row is one line).
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// Text writes s as Markdown text that renders as s and nothing else:
// letters, digits, spaces and a few signs as they are, every other
// character as a numeric character reference (no table pipe, backtick,
// emphasis, heading, tag or entity comes from s: `<img src=…>` shows as
// text), line breaks and other control characters as a space or their
// Go escape (printable.Line), and a zero-width space after "@" (no
// mention), "#" (no issue or pull request link), the ":" of "://" and the
// "www" of "www." (no autolink: a URL from the repository is not a link).
func Text(s string) string {
	s = printable.Line(lineBreaks.Replace(s))
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '.', r == ',', r == '/', r == '-', r == '=', r == '→',
			r == '(', r == ')', r == '"', r == '\'', r == ';', r == '?', r == '!', r == '+', r == '%', r == '{', r == '}', r == '…':
			b.WriteRune(r)
			if (r == 'w' || r == 'W') && i >= 2 && strings.EqualFold(s[i-2:i+1], "www") && strings.HasPrefix(s[i+1:], ".") {
				b.WriteString(zwsp)
			}
		case r == ':':
			b.WriteByte(':')
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteString(zwsp)
			}
		case r == '@':
			b.WriteString("&#64;" + zwsp)
		case r == '#':
			b.WriteString("&#35;" + zwsp)
		default:
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String()
}

// Code is Text in an HTML code element (a monospace span that no
// repository text can close: Text writes "<" as a reference).
func Code(s string) string { return "<code>" + Text(s) + "</code>" }

// Cell is Text of s shortened to n characters (printable.Cut: the rest is
// counted, "…(+29,980 characters)").
func Cell(s string, n int) string { return Text(printable.Cut(s, n)) }
