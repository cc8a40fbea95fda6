// Package codeowners reads a repository's CODEOWNERS file and says who
// owns a path, in the syntax of the host that reads it:
//
//   - GitHub: the first of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS;
//     gitignore-like patterns (no "!" negation, no "[ ]" ranges); the last
//     matching line wins, and a line without owners leaves the path
//     without owners.
//   - GitLab: the first of CODEOWNERS, docs/CODEOWNERS, .gitlab/CODEOWNERS;
//     the same patterns, in sections ("[Name]", optional "^[Name]", an
//     approval count "[Name][2]", default owners after the header); each
//     section is matched on its own (last match wins in it), a path gets
//     the owners of every section that matches it, and an entry without
//     owners takes its section's defaults. Sections of the same name are
//     one section.
//
// The file is read through the confined file system like every other
// byte of the repository, and capped.
package codeowners
