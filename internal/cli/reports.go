package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/report"
)

// reportFlags are --report FORMAT[=FILE] (repeatable): the reports one run
// writes besides (or, without a file, instead of) what the command prints
// on stdout by default. The action renders them (its Reports option); the
// cli checks the files before the run and writes them after it.
type reportFlags struct {
	specs []string
}

// register binds --report; instead names what a report on stdout
// replaces ("the manifests").
func (r *reportFlags) register(cmd *cobra.Command, instead string) {
	cmd.Flags().StringArrayVar(&r.specs, "report", nil, "also write the findings in FORMAT to FILE, once the run completed (repeatable; FORMAT one of "+
		strings.Join(report.Formats(), ", ")+"); without =FILE on stdout instead of "+instead)
}

// registerFiles binds --report for a command whose stdout is a contract
// (postrender's manifests): reports go to files only.
func (r *reportFlags) registerFiles(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&r.specs, "report", nil, "also write the findings in FORMAT to FILE, once the run completed (repeatable: FORMAT=FILE, FORMAT one of "+
		strings.Join(report.Formats(), ", ")+"; stdout carries only the manifests)")
}

// targets parses the flags and checks, before the run, that every file can
// be written. output is the stdout format a flag (outputFlag, e.g. -o) set
// explicitly ("" when none): it and a --report to stdout exclude each
// other.
func (r *reportFlags) targets(outputFlag, output string) ([]report.Target, error) {
	ts, err := report.ParseTargets(r.specs)
	if err != nil {
		return nil, fail("%v", err)
	}
	if t, ok := report.StdoutTarget(ts); ok && output != "" {
		return nil, fail("--%s %s and --report %s both go to standard output, which holds one report: give the --report a file (%s=FILE), or drop --%s", outputFlag, output, t, t.Format, outputFlag)
	}
	if err := report.CheckFiles(ts); err != nil {
		return nil, fail("%v", err)
	}
	return ts, nil
}

// writeReports writes the reports for files (atomically, internal/report)
// and returns the one for standard output (nil when none goes there).
// complete false (a plugin failed and plugins.onError says fail: its
// findings are missing) writes no file and says so on stderr.
func writeReports(env *Env, rs []report.Rendered, complete bool) ([]byte, error) {
	stdout, files := report.Split(rs)
	if len(files) == 0 {
		return stdout, nil
	}
	if !complete {
		fmt.Fprintf(env.Stderr, "routeguard: no --report file written: a plugin failed (plugins.onError: fail), so the reports would miss its findings\n")
		return stdout, nil
	}
	if err := report.WriteFiles(files); err != nil {
		return nil, fail("%v", err)
	}
	return stdout, nil
}

// explicit is value when the flag name was set on the command line, else
// "" (its default does not claim standard output).
func explicit(cmd *cobra.Command, name, value string) string {
	if cmd.Flags().Changed(name) {
		return value
	}
	return ""
}
