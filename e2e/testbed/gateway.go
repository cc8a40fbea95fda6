package testbed

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StandInController is a STAND-IN for a Gateway API implementation (no data
// plane can run here): it writes the status a real controller writes —
// Accepted and Programmed on Gateways and their listeners, status.parents
// (Accepted, ResolvedRefs) on routes — and nothing else. It starts paused
// (objects stay without status, as before any controller has seen them);
// Reject makes it refuse one route, as a controller does for what it cannot
// program.
type StandInController struct {
	kube *Kube

	mu      sync.Mutex
	enabled bool
	rejects map[string]string // "ns/name" of a route -> message
	stop    context.CancelFunc
	done    chan struct{}
}

// ControllerName is what the stand-in writes into status.parents.
const ControllerName = "e2e.routeguard.io/stand-in-gateway-controller"

var (
	gatewayGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	routeGVRs  = []schema.GroupVersionResource{
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"},
		{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "grpcroutes"},
	}
	serviceGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}
)

// StartStandInController starts the loop (paused).
func StartStandInController(kube *Kube) *StandInController {
	ctx, cancel := context.WithCancel(context.Background())
	c := &StandInController{kube: kube, rejects: map[string]string{}, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			c.reconcile(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return c
}

// Enable starts writing status.
func (c *StandInController) Enable() { c.mu.Lock(); c.enabled = true; c.mu.Unlock() }

// Reject makes the controller refuse the route namespace/name (Accepted
// False) with message; Accept undoes it.
func (c *StandInController) Reject(namespace, name, message string) {
	c.mu.Lock()
	c.rejects[namespace+"/"+name] = message
	c.mu.Unlock()
}

// Accept undoes Reject.
func (c *StandInController) Accept(namespace, name string) {
	c.mu.Lock()
	delete(c.rejects, namespace+"/"+name)
	c.mu.Unlock()
}

// Close stops the loop.
func (c *StandInController) Close() { c.stop(); <-c.done }

func (c *StandInController) reconcile(ctx context.Context) {
	c.mu.Lock()
	enabled := c.enabled
	rejects := map[string]string{}
	for k, v := range c.rejects {
		rejects[k] = v
	}
	c.mu.Unlock()
	if !enabled {
		return
	}
	gws, err := c.kube.Dynamic.Resource(gatewayGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return // CRDs not installed yet
	}
	attached := map[string]int{} // gateway ns/name/listener -> routes
	for _, gvr := range routeGVRs {
		routes, err := c.kube.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for i := range routes.Items {
			c.reconcileRoute(ctx, gvr, &routes.Items[i], rejects, attached)
		}
	}
	for i := range gws.Items {
		c.reconcileGateway(ctx, &gws.Items[i], attached)
	}
	c.reconcileDeployments(ctx)
}

var deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// reconcileDeployments is a STAND-IN for kube-controller-manager and the
// kubelet (no container can run here): it reports every Deployment rolled
// out, as they would once its pods are ready, so health checks that wait for
// workloads (Flux's wait, Argo CD's Deployment health) can complete.
func (c *StandInController) reconcileDeployments(ctx context.Context) {
	deps, err := c.kube.Dynamic.Resource(deploymentGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		replicas, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		if !found {
			replicas = 1
		}
		gen := d.GetGeneration()
		status := map[string]any{
			"observedGeneration": gen,
			"replicas":           replicas, "updatedReplicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas,
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "stand-in: pods ready",
					"lastTransitionTime": "2026-01-01T00:00:00Z", "lastUpdateTime": "2026-01-01T00:00:00Z"},
				map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "stand-in: rolled out",
					"lastTransitionTime": "2026-01-01T00:00:00Z", "lastUpdateTime": "2026-01-01T00:00:00Z"},
			},
		}
		c.writeStatus(ctx, deploymentGVR, d, status)
	}
}

func condition(typ, status, reason, message string, gen int64) map[string]any {
	return map[string]any{
		"type": typ, "status": status, "reason": reason, "message": message,
		"observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z",
	}
}

func (c *StandInController) reconcileGateway(ctx context.Context, gw *unstructured.Unstructured, attached map[string]int) {
	gen := gw.GetGeneration()
	listeners, _, _ := unstructured.NestedSlice(gw.Object, "spec", "listeners")
	var ls []any
	for _, l := range listeners {
		lm, _ := l.(map[string]any)
		name, _ := lm["name"].(string)
		kind := "HTTPRoute"
		if p, _ := lm["protocol"].(string); p == "TLS" {
			kind = "TLSRoute"
		}
		ls = append(ls, map[string]any{
			"name":           name,
			"attachedRoutes": int64(attached[gw.GetNamespace()+"/"+gw.GetName()+"/"+name]),
			"supportedKinds": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": kind}},
			"conditions": []any{
				condition("Accepted", "True", "Accepted", "Listener accepted (stand-in controller)", gen),
				condition("Programmed", "True", "Programmed", "Listener programmed (stand-in controller)", gen),
				condition("ResolvedRefs", "True", "ResolvedRefs", "References resolved (stand-in controller)", gen),
			},
		})
	}
	status := map[string]any{
		"conditions": []any{
			condition("Accepted", "True", "Accepted", "Gateway accepted (stand-in controller)", gen),
			condition("Programmed", "True", "Programmed", "Gateway programmed (stand-in controller)", gen),
		},
		"listeners": ls,
	}
	c.writeStatus(ctx, gatewayGVR, gw, status)
}

func (c *StandInController) reconcileRoute(ctx context.Context, gvr schema.GroupVersionResource, r *unstructured.Unstructured, rejects map[string]string, attached map[string]int) {
	gen := r.GetGeneration()
	key := r.GetNamespace() + "/" + r.GetName()
	resolved := condition("ResolvedRefs", "True", "ResolvedRefs", "Backends resolved (stand-in controller)", gen)
	if missing := c.missingBackend(ctx, r); missing != "" {
		resolved = condition("ResolvedRefs", "False", "BackendNotFound", "Service "+missing+" not found (stand-in controller)", gen)
	}
	parentRefs, _, _ := unstructured.NestedSlice(r.Object, "spec", "parentRefs")
	var parents []any
	for _, p := range parentRefs {
		pm, _ := p.(map[string]any)
		accepted := condition("Accepted", "True", "Accepted", "Route accepted (stand-in controller)", gen)
		if msg, ok := rejects[key]; ok {
			accepted = condition("Accepted", "False", "NotAllowedByListeners", msg, gen)
		} else {
			ns, _ := pm["namespace"].(string)
			if ns == "" {
				ns = r.GetNamespace()
			}
			name, _ := pm["name"].(string)
			section, _ := pm["sectionName"].(string)
			attached[ns+"/"+name+"/"+section]++
		}
		parents = append(parents, map[string]any{
			"parentRef":      pm,
			"controllerName": ControllerName,
			"conditions":     []any{accepted, resolved},
		})
	}
	c.writeStatus(ctx, gvr, r, map[string]any{"parents": parents})
}

// missingBackend names the first backendRef Service that does not exist.
func (c *StandInController) missingBackend(ctx context.Context, r *unstructured.Unstructured) string {
	rules, _, _ := unstructured.NestedSlice(r.Object, "spec", "rules")
	for _, rule := range rules {
		rm, _ := rule.(map[string]any)
		refs, _ := rm["backendRefs"].([]any)
		for _, ref := range refs {
			b, _ := ref.(map[string]any)
			if k, _ := b["kind"].(string); k != "" && k != "Service" {
				continue
			}
			name, _ := b["name"].(string)
			ns, _ := b["namespace"].(string)
			if ns == "" {
				ns = r.GetNamespace()
			}
			if _, err := c.kube.Dynamic.Resource(serviceGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
				return ns + "/" + name
			}
		}
	}
	return ""
}

func (c *StandInController) writeStatus(ctx context.Context, gvr schema.GroupVersionResource, o *unstructured.Unstructured, status map[string]any) {
	// Round-trip through JSON so that int64 and float64 compare alike.
	var want any
	b, _ := json.Marshal(status)
	_ = json.Unmarshal(b, &want)
	var have any
	hb, _ := json.Marshal(o.Object["status"])
	_ = json.Unmarshal(hb, &have)
	if reflect.DeepEqual(want, have) {
		return
	}
	u := o.DeepCopy()
	u.Object["status"] = status
	_, _ = c.kube.Dynamic.Resource(gvr).Namespace(o.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: "stand-in-gateway-controller"})
}
