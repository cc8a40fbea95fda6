package apiserver

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// KubeVersion is a Kubernetes minor release ("1.31"); the zero value means
// not known.
type KubeVersion struct{ Major, Minor int }

// Known reports whether the version is known.
func (v KubeVersion) Known() bool { return v.Major > 0 }

func (v KubeVersion) String() string {
	if !v.Known() {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

func (v KubeVersion) atLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

var kubeVersionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// ParseKubeVersion parses a Kubernetes version as Argo CD's KUBE_VERSION
// and Helm's --kube-version write it: "1.31", "v1.31.2", "1.31.2-eks-1".
// "" is the unknown version.
func ParseKubeVersion(s string) (KubeVersion, error) {
	if s == "" {
		return KubeVersion{}, nil
	}
	m := kubeVersionRE.FindStringSubmatch(s)
	if m == nil {
		return KubeVersion{}, fmt.Errorf("kube version %q is not a Kubernetes version like 1.31 or v1.31.2", s)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 1 {
		return KubeVersion{}, fmt.Errorf("kube version %q is not a Kubernetes version like 1.31 or v1.31.2", s)
	}
	return KubeVersion{Major: major, Minor: minor}, nil
}

// LatestKubeVersion is the Kubernetes release whose API routeguard knows
// (k8s.io/api, k8s.io/kubernetes v1.37.1).
var LatestKubeVersion = KubeVersion{1, 37}

// APIStatus is what a cluster does with an apiVersion and kind of a
// built-in group.
type APIStatus struct {
	Served     bool
	Deprecated bool
	// Certain is false when the answer depends on a Kubernetes version that
	// is not known (then Served assumes the newest release).
	Certain bool
	// Detail says why: "deprecated in 1.14, removed in 1.22; use
	// networking.k8s.io/v1 Ingress".
	Detail string
}

var builtinGroups = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{"apiextensions.k8s.io": true, "apiregistration.k8s.io": true}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		out[gvk.Group] = true
	}
	return out
})

// IsBuiltinGroup reports whether group is one of Kubernetes' own API groups
// (the core group is "").
func IsBuiltinGroup(group string) bool { return builtinGroups()[group] }

type lifecycle interface {
	APILifecycleIntroduced() (major, minor int)
	APILifecycleDeprecated() (major, minor int)
	APILifecycleRemoved() (major, minor int)
}

type replacement interface {
	APILifecycleReplacement() schema.GroupVersionKind
}

// BuiltinAPI says whether a cluster of version v serves gvk, a kind of a
// built-in group, from the lifecycle Kubernetes records on its prerelease
// API types (k8s.io/api's zz_generated.prerelease-lifecycle.go, which
// kube-apiserver itself reads to stop serving removed versions). Without a
// version, the newest release routeguard knows decides and the answer is
// not certain.
func BuiltinAPI(gvk schema.GroupVersionKind, v KubeVersion) APIStatus {
	target := v
	if !target.Known() {
		target = LatestKubeVersion
	}
	known := scheme.Scheme.Recognizes(gvk) || gvk.GroupVersion() == schema.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"} ||
		gvk.GroupVersion() == schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}
	if !known {
		// An older cluster may still serve a version Kubernetes has since
		// deleted, a newer one may add it: certain only for the release
		// routeguard knows.
		if v == LatestKubeVersion {
			return APIStatus{Certain: true, Detail: "that release defines no such API version"}
		}
		return APIStatus{Detail: fmt.Sprintf("Kubernetes %s, the newest release routeguard knows, does not define it (an older release may still serve it)", LatestKubeVersion)}
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return APIStatus{Served: true, Certain: true}
	}
	lc, ok := obj.(lifecycle)
	if !ok {
		return APIStatus{Served: true, Certain: true} // a GA version: served since before any release routeguard targets
	}
	st := APIStatus{Served: true, Certain: v.Known()}
	imaj, imin := lc.APILifecycleIntroduced()
	dmaj, dmin := lc.APILifecycleDeprecated()
	rmaj, rmin := lc.APILifecycleRemoved()
	var use string
	if r, ok := obj.(replacement); ok && !r.APILifecycleReplacement().Empty() {
		rep := r.APILifecycleReplacement()
		use = fmt.Sprintf("; use %s %s", rep.GroupVersion(), rep.Kind)
	}
	switch {
	case rmaj > 0 && target.atLeast(rmaj, rmin):
		st.Served = false
		st.Detail = fmt.Sprintf("removed in Kubernetes %d.%d", rmaj, rmin)
		if dmaj > 0 {
			st.Detail = fmt.Sprintf("deprecated in Kubernetes %d.%d and removed in %d.%d", dmaj, dmin, rmaj, rmin)
		}
		st.Detail += use
	case imaj > 0 && v.Known() && !target.atLeast(imaj, imin):
		st.Served = false
		st.Detail = fmt.Sprintf("introduced in Kubernetes %d.%d", imaj, imin)
	case dmaj > 0 && target.atLeast(dmaj, dmin):
		st.Deprecated = true
		st.Detail = fmt.Sprintf("deprecated in Kubernetes %d.%d", dmaj, dmin)
		if rmaj > 0 {
			st.Detail += fmt.Sprintf(", removed in %d.%d", rmaj, rmin)
		}
		st.Detail += use
	}
	return st
}
