package action

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/profile"
)

// StartProfile starts the profiles of dir (else $ROUTEGUARD_PROFILE) for a
// command that is not one action (the diff commands, with or without
// --shard, and report merge); see startProfile.
func StartProfile(env Env, dir string) (stop func(), err error) { return startProfile(env, dir) }

// startProfile starts the profiles of dir (else $ROUTEGUARD_PROFILE); the
// returned func writes them, and runs on a limit's way out too (a failure
// to write them is said on env.Stderr: the run's result stands).
func startProfile(env Env, dir string) (stop func(), err error) {
	if dir == "" && env.Getenv != nil {
		dir = env.Getenv(profile.Env)
	}
	if dir == "" {
		return func() {}, nil
	}
	end, err := profile.Start(dir)
	if err != nil {
		return nil, err
	}
	write := func() {
		if err := end(); err != nil && env.Stderr != nil {
			fmt.Fprintf(env.Stderr, "routeguard: warning: --profile: %v\n", err)
		}
	}
	remove := guard.AtExit(write)
	return func() { remove(); write() }, nil
}
