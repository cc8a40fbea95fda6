// Package luahealth runs routeguard's health checks (lua-health/ in the main
// repository) through Argo CD's own code: the Lua VM of util/lua with no open
// libraries and its one-second budget, the settings manager that reads
// argocd-cm, and gitops-engine's resource-health lookup that the application
// controller calls on every refresh. It holds tests only.
package luahealth
