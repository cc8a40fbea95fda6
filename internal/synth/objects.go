package synth

import "fmt"

func ingressClass(o Options) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: %s
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
`, o.IngressClassName)
}

func namespace(ns string, o Options) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
  labels:
    istio-injection: enabled
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: public
  namespace: %[1]s
spec:
  gatewayClassName: %[2]s
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    hostname: "*.%[1]s.%[3]s"
    allowedRoutes:
      namespaces:
        from: Same
`, ns, o.GatewayClassName, o.DomainSuffix)
}

func service(ns, svc string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[2]s
  namespace: %[1]s
  labels:
    app: %[2]s
spec:
  selector:
    app: %[2]s
  ports:
  - name: http
    port: 80
    targetPort: 8080
`, ns, svc)
}

func httpRoute(ns, svc, target string, o Options) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  parentRefs:
  - name: public
    sectionName: http
  hostnames:
  - %[2]s.%[1]s.%[4]s
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /
    backendRefs:
    - name: %[3]s
      port: 80
`, ns, svc, target, o.DomainSuffix)
}

func virtualService(ns, svc, target string, blue int) string {
	return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  hosts:
  - %[2]s
  http:
  - route:
    - destination:
        host: %[3]s
        subset: blue
      weight: %[4]d
    - destination:
        host: %[3]s
        subset: green
      weight: %[5]d
`, ns, svc, target, blue, 100-blue)
}

func destinationRule(ns, svc string) string {
	return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  host: %[2]s
  subsets:
  - name: blue
    labels:
      version: blue
  - name: green
    labels:
      version: green
`, ns, svc)
}

func ingress(ns, svc, target string, o Options) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  ingressClassName: %[4]s
  rules:
  - host: %[2]s.%[1]s.internal.%[5]s
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: %[3]s
            port:
              name: http
`, ns, svc, target, o.IngressClassName, o.DomainSuffix)
}

func deployment(ns, svc, version string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[2]s-%[3]s
  namespace: %[1]s
spec:
  replicas: 2
  selector:
    matchLabels:
      app: %[2]s
      version: %[3]s
  template:
    metadata:
      labels:
        app: %[2]s
        version: %[3]s
    spec:
      containers:
      - name: app
        image: registry.example.com/%[2]s:1.4.2
        ports:
        - name: http
          containerPort: 8080
`, ns, svc, version)
}
