// Package newcomer does the four newcomer tasks of docs/contributing.md once
// each, in a copy of the tree: a throwaway analyzer code, report format,
// health-checked kind and notification trigger, each with exactly the files
// its section says, then the generators and the tests the section names.
// When a task needs one more hand-edited file than contributing.md says (a
// list in a test, a docs table), a test in the copy fails; when the page
// names a different number than the files written here, this test fails.
//
// It compiles most of the module in the copy (minutes), so it runs on its
// own: `make test-newcomer` (part of `make test`), `go test -tags newcomer`.
package newcomer
