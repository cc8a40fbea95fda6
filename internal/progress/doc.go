// Package progress shows how far a long command has come, on a terminal
// only: one line per item finished (an Argo CD Application, a Flux
// Kustomization or HelmRelease, a revision of a diff), rewritten in place,
// and at the end a summary with the counts by outcome and the findings by
// severity.
//
// Output that is not a terminal gets nothing at all (logs, golden files and
// the CMP's stderr stay as they were) unless ROUTEGUARD_PROGRESS=always
// (or --progress always) forces it on; then each item is a plain line,
// since a log cannot rewrite a line. On a terminal one line is rewritten
// rather than one printed per item: a repository of 400 Applications
// would otherwise push the findings and notices, which come after, out of
// the scrollback; the line is cleared when the run ends, so what remains
// is the command's own output and the summary.
//
// The writer is passed in; whether it is a terminal is asked once, of the
// file underneath (golang.org/x/term), so a test drives it with a fake
// terminal (a pty) or with the mode forced.
package progress
