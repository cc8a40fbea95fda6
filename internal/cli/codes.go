package cli

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/report"
)

func newCodesCommand(env *Env) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "codes",
		Short: "Print the catalog of finding codes",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			var buf bytes.Buffer
			if err := report.WriteCatalog(&buf, output, analysis.Catalog()); err != nil {
				return fail("--output: %v", err)
			}
			return writeStdout(env, buf.Bytes())
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "text", "format: text or json")
	return c
}
