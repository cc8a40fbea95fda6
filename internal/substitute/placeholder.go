package substitute

import "strings"

// PlaceholderPrefix starts the value `routeguard flux build` substitutes
// for a variable that only the cluster holds: a substituteFrom ConfigMap
// or Secret that is made in the cluster (ExternalSecret, SealedSecret,
// SOPS) or is not in the repository, when no --var gives it. The same
// variable gets the same placeholder everywhere, so a listener's
// *.${DOMAIN} still matches a route's app.${DOMAIN}; validation does not
// judge what a placeholder explains (its value is the cluster's).
const PlaceholderPrefix = "routeguard-unset-"

// Placeholder is the value substituted for the cluster-only variable name.
func Placeholder(name string) string {
	return PlaceholderPrefix + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
}
