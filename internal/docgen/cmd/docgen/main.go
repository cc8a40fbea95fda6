// Command docgen regenerates the documentation that lists in the code
// decide (see package docgen). Run it with `go generate ./internal/docgen`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/routeguard/routeguard/internal/docgen"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	changed, err := docgen.Update(*root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
		os.Exit(1)
	}
	for _, f := range changed {
		fmt.Printf("docgen: updated %s\n", f)
	}
}
