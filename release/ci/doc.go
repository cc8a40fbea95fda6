// Package ci holds the tests of routeguard's CI integrations: the GitHub
// Action (action.yml), the GitLab CI template (templates/routeguard.yml),
// the repository's workflows and the CI examples. The workflows are linted
// with actionlint (as a library); the scripts of the action and of the
// template run against a release served from a loopback HTTP server.
package ci
