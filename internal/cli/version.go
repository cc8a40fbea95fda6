package cli

import (
	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/version"
)

func newVersionCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print routeguard's version, VCS revision, platform and Go version",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			return writeStdout(env, []byte("routeguard "+version.Get().String()+"\n"))
		},
	}
}
