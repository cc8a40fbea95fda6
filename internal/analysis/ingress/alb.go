package ingress

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// albAction is the part of an AWS Load Balancer Controller action
// (annotation alb.ingress.kubernetes.io/actions.<name>) that names
// Services: a forward action's target groups.
type albAction struct {
	Type          string `json:"type"`
	ForwardConfig *struct {
		TargetGroups []struct {
			ServiceName string          `json:"serviceName"`
			ServicePort json.RawMessage `json:"servicePort"`
		} `json:"targetGroups"`
	} `json:"forwardConfig"`
}

// checkALBAction checks a backend written the ALB controller's way
// (service.name: <action>, port.name: use-annotation): the action
// annotation exists and parses, and the Services its forward action names
// exist and have the ports.
func checkALBAction(c *analysis.Context, ing *manifest.Object, where, action string) {
	key := albActionPrefix + action
	raw, ok := ing.Annotations()[key]
	if !ok && rolloutWritesAction(c, ing, action) {
		// Argo Rollouts writes the action at run time (canary with
		// trafficRouting.alb on this Ingress): not missing.
		return
	}
	if !ok {
		c.ReportCode(ing, analysis.CodeIngressALBAction, where, albUseAnnotation, action, key, "is missing: the controller cannot build the rule")
		return
	}
	var a albAction
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		c.ReportCode(ing, analysis.CodeIngressALBAction, where, albUseAnnotation, action, key, "is not valid action JSON ("+err.Error()+"): the controller cannot build the rule")
		return
	}
	if a.ForwardConfig == nil {
		return // fixed-response, redirect, or forward to a target group ARN: no Service
	}
	for _, tg := range a.ForwardConfig.TargetGroups {
		if tg.ServiceName == "" {
			continue
		}
		checkService(c, ing, fmt.Sprintf("action %q (annotation %s) of %s", action, key, where), tg.ServiceName, albPort(tg.ServicePort))
	}
}

// albPort reads a target group's servicePort: a number, or a string that
// is a number or a port name; nil when absent.
func albPort(raw json.RawMessage) any {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

// rolloutGK is Argo Rollouts' Rollout.
var rolloutGK = manifest.GroupKind{Group: "argoproj.io", Kind: "Rollout"}

// rolloutWritesAction reports whether an Argo Rollouts Rollout in the
// Ingress's namespace writes the action annotation at run time: a canary
// whose trafficRouting.alb names this Ingress (ingress or ingresses) and
// whose rootService (else stableService) is the action's name; the
// controller keeps alb.ingress.kubernetes.io/actions.<that name> up to date
// with the canary's weights.
func rolloutWritesAction(c *analysis.Context, ing *manifest.Object, action string) bool {
	ns := c.Namespace(ing)
	for _, set := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
		for _, r := range set.ByKind(rolloutGK.Group, rolloutGK.Kind) {
			if c.Namespace(r) != ns {
				continue
			}
			canary := field.Map(r.Body, "spec", "strategy", "canary")
			alb := field.Map(canary, "trafficRouting", "alb")
			if alb == nil {
				continue
			}
			ingresses := append(field.Strings(alb, "ingresses"), field.String(alb, "ingress"))
			root := field.String(alb, "rootService")
			if root == "" {
				root = field.String(canary, "stableService")
			}
			if root == action && slices.Contains(ingresses, ing.Name) {
				return true
			}
		}
	}
	return false
}
