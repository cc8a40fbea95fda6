package istio

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"istio.io/istio/pkg/config"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/config/schema/gvk"
)

// ingressService is the Service (and Pod label istio=ingressgateway) that
// Istio's file-only analysis assumes (local.AddDefaultResources).
const ingressService = "istio-ingressgateway"

// addDefaultIngress adds the stand-in ingress gateway Pod and Service that
// istioctl adds for file-only analysis (with a real install's target
// ports, below), unless the rendered set
// defines that Service itself. Messages about them are never reported:
// they are not in the input.
func addDefaultIngress(st *store, istioNS string, in *input) error {
	if _, ok := in.services[[2]string{istioNS, ingressService}]; ok {
		return nil
	}
	podLabels := map[string]string{"istio": "ingressgateway"}
	pod := config.Config{
		Meta: config.Meta{GroupVersionKind: gvk.Pod, Name: ingressService + "-dummypod", Namespace: istioNS, Labels: podLabels},
		Spec: &corev1.PodSpec{Containers: []corev1.Container{{Name: "istio-proxy"}}},
	}
	// istioctl's ports, except that 80 and 443 reach the pod on 8080 and
	// 8443 as in every install since the gateways run unprivileged (the
	// gateway chart's and the default profile's Service): a Gateway server
	// on either number is served (IST0162 accepts a port or its
	// targetPort), and Istio's own samples listen on 8080.
	var ports []corev1.ServicePort
	for _, p := range []struct {
		name               string
		port, target, node int32
	}{{"status-port", 15021, 15021, 0}, {"http2", 80, 8080, 31380}, {"https", 443, 8443, 31390}, {"tcp", 31400, 31400, 31400}, {"tls", 15443, 15443, 31447}} {
		ports = append(ports, corev1.ServicePort{Name: p.name, Port: p.port, NodePort: p.node,
			Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(p.target)})
	}
	svc := config.Config{
		Meta: config.Meta{GroupVersionKind: gvk.Service, Name: ingressService, Namespace: istioNS},
		Spec: &corev1.ServiceSpec{Ports: ports, Selector: podLabels},
	}
	for _, c := range []config.Config{pod, svc} {
		if _, err := st.Create(c); err != nil {
			return fmt.Errorf("adding Istio's default ingress gateway %s: %w", c.Name, err)
		}
	}
	in.addPodLabels(istioNS, podLabels)
	return nil
}

// addMeshConfig adds Istio's default mesh configuration and mesh networks,
// as local.IstiodAnalyzer does when no mesh config file is given.
func addMeshConfig(st *store, istioNS string) error {
	for _, c := range []config.Config{
		{Meta: config.Meta{Name: "meshconfig", Namespace: istioNS, GroupVersionKind: gvk.MeshConfig}, Spec: mesh.DefaultMeshConfig()},
		{Meta: config.Meta{Name: "meshnetworks", Namespace: istioNS, GroupVersionKind: gvk.MeshNetworks}, Spec: mesh.DefaultMeshNetworks()},
	} {
		if _, err := st.Create(c); err != nil {
			return fmt.Errorf("adding Istio's default %s: %w", c.Name, err)
		}
	}
	return nil
}
