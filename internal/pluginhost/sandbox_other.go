//go:build !linux

package pluginhost

// protectHost has nothing to do where there is no prctl: plugins there
// rely on the process group kill alone (see docs/security.md).
func protectHost() {}

func reapOrphans(string) {}
