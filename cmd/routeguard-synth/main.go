// Command routeguard-synth writes a synthetic routing repository for
// benchmarks (see internal/synth) and prints the objects that carry an
// injected dangling reference, one "Kind namespace/name" per line.
//
//	routeguard-synth -objects 10000 -dangling 50 -seed 1 -out DIR
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/routeguard/routeguard/internal/synth"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("routeguard-synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts synth.Options
	objects := fs.Int("objects", 0, "size the repository to at most this many objects (overrides -services)")
	fs.IntVar(&opts.Services, "services", 200, "number of services")
	fs.IntVar(&opts.Dangling, "dangling", 5, "services whose HTTPRoute, VirtualService and Ingress point at a missing Service")
	fs.IntVar(&opts.ServicesPerNS, "per-namespace", 20, "services per namespace")
	fs.BoolVar(&opts.Workloads, "workloads", false, "add blue and green Deployments for every service")
	fs.Uint64Var(&opts.Seed, "seed", 1, "seed choosing the dangling services")
	out := fs.String("out", "", "directory to write (must not exist, or be empty)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "routeguard-synth: give -out DIR and no arguments")
		return 2
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		fmt.Fprintf(stderr, "routeguard-synth: %s is not empty; remove it or choose another -out\n", *out)
		return 2
	}
	if *objects > 0 {
		opts.Services = synth.ForObjects(*objects, opts)
	}
	repo, err := synth.Generate(opts)
	if err == nil {
		err = repo.Write(*out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "routeguard-synth: %v\n", err)
		return 2
	}
	for _, r := range repo.Injected {
		fmt.Fprintln(stdout, r)
	}
	fmt.Fprintf(stderr, "routeguard-synth: wrote %d objects (%d services, %d injected dangling references) to %s\n",
		repo.Objects, opts.Services, len(repo.Injected), *out)
	return 0
}
