// Package golden records what every routeguard command prints (stdout,
// stderr, exit code) on the bundled examples, the corpus of test/corpus and
// the benchmark inputs (internal/synth, scripts/gen-flux-tree.sh, the
// repository of scripts/bench-diff.sh), one file per command line under
// testdata/. A refactor that must not change behaviour keeps them
// byte-identical; a change that means to change output runs
//
//	go test ./test/golden -update
//
// and commits the new files with the reason. Paths of the fixtures built
// in a temporary directory, the routeguard checkout, commit hashes and the
// binary's version are replaced by placeholders ($FIXTURES, $REPO, $BASE,
// $HEAD, $VERSION), so that the files do not depend on the machine.
package golden
