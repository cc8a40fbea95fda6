// Command modproxy serves this repository's modules from a directory, for
// the go command (GOPROXY=file://DIR), and prints the plugin SDK's go.sum
// lines. The Makefile uses it for `make tidy` and `make sdk-sum`
// (docs/releasing.md).
//
//	modproxy -root .. -out DIR [-main VERSION]   write the SDK (and routeguard at VERSION)
//	modproxy -root .. -sum                       print the SDK's go.sum lines
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/routeguard/routeguard/release/modproxy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("modproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository checkout")
	out := fs.String("out", "", "write a module proxy directory here")
	mainVersion := fs.String("main", "", "also serve routeguard's main module at this version")
	sum := fs.Bool("sum", false, "print the go.sum lines of the plugin SDK at the version go.mod requires")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (*out == "") == !*sum {
		fmt.Fprintln(stderr, "modproxy: give -out DIR or -sum")
		return 2
	}
	sdk, err := modproxy.SDK(*root)
	if err != nil {
		fmt.Fprintf(stderr, "modproxy: %v\n", err)
		return 1
	}
	if *sum {
		lines, err := modproxy.Sum(sdk)
		if err != nil {
			fmt.Fprintf(stderr, "modproxy: %v\n", err)
			return 1
		}
		fmt.Fprint(stdout, lines)
		return 0
	}
	mods := []modproxy.Module{sdk}
	if *mainVersion != "" {
		mods = append(mods, modproxy.Main(*root, *mainVersion))
	}
	if err := modproxy.Write(*out, mods...); err != nil {
		fmt.Fprintf(stderr, "modproxy: %v\n", err)
		return 1
	}
	return 0
}
