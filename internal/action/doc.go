// Package action holds what each routeguard command does, one file per
// verb, as Helm's pkg/action: a struct of typed options (the command's
// flags bind straight to its fields) and a Run method that returns a
// typed result. A command of internal/cli only binds flags, prints the
// result and turns it into an exit code; anything two commands share (the
// plugin host, the view of the target cluster, rendering options, the
// report, the verdict) is here once.
//
// Actions keep no process-wide state: any number may run concurrently.
package action
