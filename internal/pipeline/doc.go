// Package pipeline is routeguard's one stage behind every front door:
// render (or take objects already at hand) -> substitute -> transform ->
// analyze -> outcome. `analyze`, `cmp generate`, `flux build`, `postrender`
// and the benchmark binary call Run; they differ only in where input comes
// from and what they print.
//
// Run keeps no process-wide state: any number of runs, of different
// repositories, may go on concurrently in one process.
package pipeline
