package apiserver

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func body(t *testing.T, doc string) map[string]any {
	t.Helper()
	var b map[string]any
	if err := yaml.Unmarshal([]byte(doc), &b); err != nil {
		t.Fatal(err)
	}
	return deepCopyJSON(b).(map[string]any)
}

func TestValidateBuiltin(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // "field: substring"
	}{
		{"valid Service without namespace (the app's is used)", `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {selector: {app: web}, ports: [{port: 80}]}}`, nil},
		{"ports defaulted before validation: targetPort follows port", `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {ports: [{port: 0}]}}`,
			[]string{"spec.ports[0].port: must be between 1 and 65535", "spec.ports[0].targetPort: must be between 1 and 65535"}},
		// The Service storage allocates the health check node port before
		// validating (beginCreate): a manifest never names it.
		{"LoadBalancer Service with externalTrafficPolicy Local", `{apiVersion: v1, kind: Service, metadata: {name: dns}, spec: {type: LoadBalancer, externalTrafficPolicy: Local, selector: {app: dns}, ports: [{port: 53, protocol: UDP}]}}`, nil},
		{"health check node port on a Service that has none", `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {type: NodePort, healthCheckNodePort: 31000, selector: {app: web}, ports: [{port: 80}]}}`,
			[]string{"spec.healthCheckNodePort: may only be set when `type` is 'LoadBalancer'"}},
		{"health check node port out of range", `{apiVersion: v1, kind: Service, metadata: {name: dns}, spec: {type: LoadBalancer, externalTrafficPolicy: Local, healthCheckNodePort: 70000, selector: {app: dns}, ports: [{port: 53}]}}`,
			[]string{"spec.healthCheckNodePort: Invalid value: 70000"}},
		{"cluster-scoped kind: namespace ignored", `{apiVersion: networking.k8s.io/v1, kind: IngressClass, metadata: {name: nginx, namespace: apps}, spec: {controller: k8s.io/ingress-nginx}}`, nil},
		{"Namespace name", `{apiVersion: v1, kind: Namespace, metadata: {name: Team_A}}`, []string{"metadata.name: a lowercase RFC 1123 label"}},
		{"ConfigMap key", `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {"bad key": x}}`, []string{"data[bad key]: Invalid value"}},
		{"StatefulSet without serviceName is fine, with a bad one not", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db}, spec: {serviceName: DB, selector: {matchLabels: {app: db}},
			template: {metadata: {labels: {app: db}}, spec: {containers: [{name: db, image: "db:1"}]}}}}`, []string{"spec.serviceName: Invalid value: \"DB\""}},
		{"CronJob schedule", `{apiVersion: batch/v1, kind: CronJob, metadata: {name: c}, spec: {schedule: "every day", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: "c:1"}]}}}}}}`,
			[]string{"spec.schedule: Invalid value: \"every day\""}},
		{"RoleBinding without roleRef name", `{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: r}, roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role}, subjects: [{kind: ServiceAccount, name: sa}]}`,
			[]string{"roleRef.name: Required value"}},
		{"PodDisruptionBudget with both bounds", `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p}, spec: {minAvailable: 1, maxUnavailable: 1, selector: {matchLabels: {app: a}}}}`,
			[]string{"spec: Invalid value"}},
		{"NetworkPolicy port", `{apiVersion: networking.k8s.io/v1, kind: NetworkPolicy, metadata: {name: "n"}, spec: {podSelector: {}, ingress: [{ports: [{port: 70000}]}]}}`,
			[]string{"spec.ingress[0].ports[0].port: Invalid value: 70000"}},
		{"value of the wrong type", `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {ports: [{port: "80"}]}}`,
			[]string{"spec.ports.port: a string where an integer belongs"}},
		{"privileged container (CNI/CSI DaemonSets): allowed, as clusters run kube-apiserver with --allow-privileged", `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: csi}, spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {hostNetwork: true, containers: [{name: a, image: "a:1", securityContext: {privileged: true}}]}}}}`, nil},
		{"unknown field", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {replica: 2, selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {containers: [{name: a, image: "a:1"}]}}}}`,
			[]string{`spec.replica: unknown field "spec.replica"`}},
	}
	for _, tc := range tests {
		res, err := ValidateBuiltin(context.Background(), "apps", body(t, tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(res.Violations) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, res.Violations, tc.want)
			continue
		}
		for i, w := range tc.want {
			field, msg, _ := strings.Cut(w, ": ")
			if v := res.Violations[i]; v.Field != field || !strings.Contains(v.Message, msg) {
				t.Errorf("%s: violation %d = %s, want %s", tc.name, i, v, w)
			}
		}
	}
	if _, err := ValidateBuiltin(context.Background(), "apps", body(t, `{apiVersion: v1, kind: Pod, metadata: {name: p}}`)); err == nil {
		t.Error("Pod is not validated in full, yet ValidateBuiltin accepted it")
	}
}

func TestDecodeBuiltin(t *testing.T) {
	res, ok, err := DecodeBuiltin(body(t, `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: a, image: "a:1", imagePullPolicy: Always, stdinn: true}]}}`))
	if err != nil || !ok || len(res.Violations) != 1 || res.Violations[0].Field != "spec.containers[0].stdinn" || res.Violations[0].Class != UnknownField {
		t.Errorf("Pod: %v %v %+v", ok, err, res)
	}
	if _, ok, _ := DecodeBuiltin(body(t, `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}`)); ok {
		t.Error("a custom resource was decoded as a built-in kind")
	}
}
