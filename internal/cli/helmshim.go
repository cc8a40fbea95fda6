package cli

import (
	"context"

	"github.com/routeguard/routeguard/internal/render"
)

// helmShimEnv marks a routeguard process started by Kustomize as its helm
// binary (see render.HelmShim).
const helmShimEnv = render.HelmShimEnv

func runHelmShim(ctx context.Context, env *Env, args []string) int {
	return render.HelmShim(ctx, args, env.Getenv, env.Stdout, env.Stderr)
}
