package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
)

func newMapCommand(env *Env) *cobra.Command {
	a := &action.Map{}
	cmd := &cobra.Command{
		Use:   "map [PATH]",
		Short: "Print the route map of an app: listeners and gateways -> routes -> backends with weights",
		Long: `Renders the app in PATH (default .) like 'routeguard render' and prints its
route map: per Gateway listener, Ingress class, Istio gateway and the mesh,
which host and match go to which backends with which weights, where each
route attaches, the TLS hosts and the ReferenceGrants.

Output: text (the route table), mermaid (a flowchart for Markdown), svg (a
drawing) or json.`,
		Example: "  routeguard map apps/shop\n  routeguard map -o svg apps/shop > shop.svg",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := a.Run(cmd.Context(), env.action(), pathArg(args))
			if err != nil {
				return fail("%v", err)
			}
			return writeStdout(env, res.Output)
		},
	}
	registerRender(cmd.Flags(), &a.Render)
	cmd.Flags().StringVarP(&a.Output, "output", "o", "text", "output format: "+strings.Join(action.MapFormats, ", "))
	return cmd
}
