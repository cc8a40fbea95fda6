package cli

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routemap"
)

var mapFormats = []string{"text", "mermaid", "svg", "json"}

func newMapCommand(env *Env) *cobra.Command {
	var rf renderFlags
	var output string
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
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			if !slices.Contains(mapFormats, output) {
				return fail("--output must be %s, got %q", strings.Join(mapFormats, ", "), output)
			}
			opts, err := rf.options(env, path)
			if err != nil {
				return fail("%v", err)
			}
			out, err := pipeline.Run(cmd.Context(), pipeline.Request{Render: &opts})
			if err != nil {
				return fail("%v", err)
			}
			m := routemap.Build(out.Set, opts.Helm.Namespace)
			var buf bytes.Buffer
			switch output {
			case "json":
				enc := json.NewEncoder(&buf)
				enc.SetIndent("", "  ")
				err = enc.Encode(m)
			case "mermaid":
				_, err = buf.WriteString(routemap.Mermaid(routemap.NewGraph(m, m)))
			case "svg":
				err = routemap.SVG(&buf, routemap.NewGraph(m, m), "routeguard map: "+mapTitle(out, path))
			default:
				err = routemap.WriteText(&buf, m)
			}
			if err != nil {
				return fail("writing the map: %v", err)
			}
			return writeStdout(env, buf.Bytes())
		},
	}
	rf.register(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: "+strings.Join(mapFormats, ", "))
	return cmd
}

func mapTitle(out *pipeline.Outcome, path string) string {
	if out.Path != "" && out.Tool != render.Tool("") {
		return out.Path
	}
	return path
}
