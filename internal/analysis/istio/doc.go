// Package istio runs Istio's own configuration analyzers
// (istio.io/istio/pkg/config/analysis, the code behind `istioctl analyze`)
// over a rendered set of objects and maps every message back to the file and
// line of the object it is about.
//
// It differs from `istioctl analyze --use-kube=false` in three ways, each on
// purpose:
//
//   - Services, Namespaces and workloads are kept. The file source istioctl
//     uses drops them, which silently skips the analyzers that need them
//     (destination hosts, gateway ports, ...).
//   - Pods never live in Git, so Pods are synthesized from the pod templates
//     of the rendered Deployments, StatefulSets, DaemonSets, ReplicaSets,
//     Jobs and CronJobs. Messages about what only a live cluster can know are
//     not reported where no rendered workload backs them (see filter.go).
//   - All namespaces are analyzed.
//
// The package links Istio (a large dependency with a noticeable start-up
// cost); keep every Istio import inside it so the main binary can load it
// out of process.
package istio
