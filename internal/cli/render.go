package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/notice"
)

func newRenderCommand(env *Env) *cobra.Command {
	a := &action.Render{}
	cmd := &cobra.Command{
		Use:   "render [PATH]",
		Short: "Render an app directory into the manifests the reconciler would apply",
		Long: `Renders the app in PATH (default .) as Argo CD would: Kustomize when the
directory holds a kustomization, Helm when it holds Chart.yaml, else a directory
of YAML/JSON manifests. Prints the objects on stdout.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := a.Run(cmd.Context(), env.action(), pathArg(args))
			if err != nil {
				return fail("%v", err)
			}
			for _, w := range res.Result.Warnings {
				notice.Write(env.Stderr, []notice.Notice{{Level: notice.Warning, Text: w}})
			}
			return writeStdout(env, res.Manifests)
		},
	}
	registerRender(cmd.Flags(), &a.Render)
	cmd.Flags().StringVarP(&a.Output, "output", "o", "yaml", "output format: "+strings.Join(action.ManifestFormats, " or "))
	return cmd
}
