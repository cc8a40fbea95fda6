// Package resultcache keeps the results of routeguard's costliest
// per-object checks (the API server's validation) on disk, keyed by
// content, so that a run over objects that did not change since the last
// (a CI job on the next commit, Argo CD's next manifest generation) reads
// their results instead of computing them again.
//
// A key is a SHA-256 computed by routeguard over everything a result
// depends on (the caller's parts, each length-prefixed, and the build of
// routeguard itself), so that neither another build nor a repository can
// make two inputs share an entry. The directory is the user's (0700,
// refused when it is a link or another user's). A run's new results are
// written together as one pack (pack.go: an index of keys, checksums and
// offsets, then the values), to a temporary file (0600) renamed into
// place: one file per run, not one per object, and a reader sees a whole
// pack or none. Every record is checked against the file and every value
// against its SHA-256 on read: a pack that is cut short, altered or not
// routeguard's is a miss (counted, removed, and said once by the
// command), never a result. Entries, packs and the directory are bounded;
// the oldest packs are removed past the bound.
package resultcache
