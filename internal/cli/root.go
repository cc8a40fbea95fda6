package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/version"
)

// NewRootCommand builds the whole command tree. Commands are listed here,
// explicitly; each is built by a function in its own file.
func NewRootCommand(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "routeguard",
		Short: "Make Kubernetes traffic routing changes safe to merge in GitOps repositories",
		Long: `routeguard renders GitOps apps as Argo CD and Flux would (plain YAML, Kustomize,
Helm, Helm + Kustomize, Flux Kustomizations and HelmReleases) and analyzes their
traffic routing (Gateway API, Ingress, Istio) before anything reaches a cluster.

Exit codes: 0 success, 1 a finding reached the failing severity, 2 usage,
input or render error. The README says what each command prints on each.`,
		Version:       version.Get().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Without a command: the usage on stderr, exit 2.
		RunE: func(cmd *cobra.Command, args []string) error { return usageError(cmd) },
	}
	root.SetVersionTemplate("routeguard {{.Version}}\n")
	var limits guardFlags
	limits.register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return limits.start(cmd, env) }
	root.PersistentPostRun = func(*cobra.Command, []string) { limits.stop() }
	root.AddCommand(
		newAnalyzeCommand(env),
		newArgoCDCommand(env),
		newCMPCommand(env),
		newCodesCommand(env),
		newDiffCommand(env),
		newFluxCommand(env),
		newHealthCommand(env),
		newMapCommand(env),
		newNotificationsCommand(env),
		newPostrenderCommand(env),
		newRenderCommand(env),
		newReportCommand(env),
		newVersionCommand(env),
	)
	// cobra adds `completion` when the tree runs; made here, it can be a
	// group like the others: without a shell, the usage on stderr, exit 2
	// (cobra's own prints its help on stdout and exits 0).
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.NoArgs
			c.RunE = func(cmd *cobra.Command, args []string) error { return usageError(cmd) }
		}
	}
	return root
}

// group is a command that only holds subcommands: run alone, it prints its
// usage on stderr and exits 2.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return usageError(cmd) },
	}
	c.AddCommand(subs...)
	return c
}

// noArgs is cobra.NoArgs for commands without subcommands (cobra's says
// "unknown command", which suggests a typo in a subcommand's name).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("takes no arguments, got %q", args)
	}
	return nil
}
