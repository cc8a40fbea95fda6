// Command gen writes the generated Argo CD monorepo (package monorepo) of
// -n apps into -o, for benchmarks: go run ./internal/synth/monorepo/gen -n 2000 -o DIR.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

func main() {
	n := flag.Int("n", 2000, "number of apps")
	out := flag.String("o", "", "directory to write into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -o DIR is required")
		os.Exit(2)
	}
	if err := monorepo.New(*n).Write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
