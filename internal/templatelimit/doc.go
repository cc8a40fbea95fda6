// Package templatelimit bounds what a Go template from a repository can
// make: Helm chart templates and Argo CD ApplicationSet templates, both
// text/template with Sprig's functions. Sprig computes some results in
// one allocation whose size a number in the template chooses (`repeat
// 6000000000 "a"`, `indent`, `randAlphaNum`, `replace`, `join`,
// `splitList ""`), and `until` or `seq` build lists of any length; a
// repository can ask for gigabytes before any watchdog samples.
//
// Funcs returns replacements for those functions that compute the size of
// their result first and refuse it, with an error naming the function,
// past the limit of one template's output (--max-file-size). Below the
// limit they call Sprig's own function, so results are byte for byte
// Sprig's, but for the random ones, which draw from a stream seeded the
// same for every render so that a chart renders the same twice
// (random.go). Writer bounds what a template execution writes. What grows
// step by step (a range loop appending text, nested includes) is bounded
// by the memory watchdog (internal/guard), which stops the run with a
// message naming what was rendered.
package templatelimit
