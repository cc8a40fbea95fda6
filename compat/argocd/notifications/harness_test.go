package notifications

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	service "github.com/argoproj/argo-cd/v3/util/notification/argocd"
	"github.com/argoproj/argo-cd/v3/util/notification/k8s"
	"github.com/argoproj/argo-cd/v3/util/notification/settings"
	utiltls "github.com/argoproj/argo-cd/v3/util/tls"
	"github.com/argoproj/notifications-engine/pkg/api"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"
)

const (
	namespace  = "argocd"
	cmName     = "argocd-notifications-cm"
	secretName = "argocd-notifications-secret"
	argocdURL  = "https://argocd.example.com"
	slackToken = "xoxb-routeguard-test"
)

// bundlePath is the Kustomize patch users apply, built by `routeguard
// notifications bundle --for argocd` and committed in the main repository.
var bundlePath = filepath.Join("..", "..", "..", "notifications", "dist", "argocd-notifications-cm.patch.yaml")

// nasty is text that breaks naive templates: quotes, a newline, backticks,
// Slack's control characters <, > and &, and non-ASCII.
const nasty = "route \"storefront\" <v2> & `canary` said: it's broken\nsecond line: a<b && c>d — ok"

// nastyName is a resource name with the same trouble (Argo CD's resource list
// does not validate names).
const nastyName = "storefront\"<&>`v2`"

// bundleData reads argocd-notifications-cm data from the committed patch.
func bundleData(t testing.TB) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(bundlePath)
	if err != nil {
		t.Fatalf("read bundle: %v", err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatalf("%s: %v", bundlePath, err)
	}
	if cm.Name != cmName || len(cm.Data) == 0 {
		t.Fatalf("%s: want ConfigMap %s with data, got %q with %d keys", bundlePath, cmName, cm.Name, len(cm.Data))
	}
	return cm.Data
}

// helmValuesPath is the same content as argo-cd Helm chart values.
var helmValuesPath = filepath.Join("..", "..", "..", "notifications", "dist", "argocd-helm-values.yaml")

// helmData builds argocd-notifications-cm data from the Helm values the way
// the argo-cd chart's template does: notifiers, templates and triggers are
// written into data as they are keyed.
func helmData(t testing.TB) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(helmValuesPath)
	if err != nil {
		t.Fatalf("read Helm values: %v", err)
	}
	var values struct {
		Notifications struct {
			Notifiers map[string]string `json:"notifiers"`
			Templates map[string]string `json:"templates"`
			Triggers  map[string]string `json:"triggers"`
		} `json:"notifications"`
	}
	if err := yaml.UnmarshalStrict(raw, &values); err != nil {
		t.Fatalf("%s: %v", helmValuesPath, err)
	}
	data := map[string]string{}
	for _, m := range []map[string]string{values.Notifications.Notifiers, values.Notifications.Templates, values.Notifications.Triggers} {
		for k, v := range m {
			data[k] = v
		}
	}
	return data
}

type apiOptions struct {
	argocdURL string // "" leaves context.argocdUrl unset
	extra     map[string]string
	helm      bool // take the bundle from the Helm values instead of the Kustomize patch
	// data, when set, is the ConfigMap's data instead of the bundle (the
	// service, context and extra keys are still added).
	data map[string]string
}

// newAPI builds the notifications API the way Argo CD's notifications
// controller does: a fake cluster holding argocd-notifications-cm (the bundle
// plus the user's service.slack and context) and argocd-notifications-secret,
// Argo CD's informers, notifications-engine's factory and Argo CD's
// GetFactorySettings (which defines the template variables).
func newAPI(t testing.TB, slack *fakeSlack, o apiOptions) api.API {
	t.Helper()
	data := bundleData(t)
	if o.helm {
		data = helmData(t)
	}
	if o.data != nil {
		data = map[string]string{}
		for k, v := range o.data {
			data[k] = v
		}
	}
	data["service.slack"] = "token: $slack-token\napiURL: " + slack.apiURL() + "\n"
	if o.argocdURL != "" {
		data["context"] = "argocdUrl: " + o.argocdURL + "\n"
	}
	for k, v := range o.extra {
		data[k] = v
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName, Namespace: namespace}, Data: data}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: namespace}, Data: map[string][]byte{
		"slack-token":       []byte(slackToken),
		"slack-webhook-url": []byte(slack.hookURL()),
	}}
	client := fake.NewSimpleClientset(cm, secret)
	secrets := k8s.NewSecretInformer(client, namespace, secretName)
	configMaps := k8s.NewConfigMapInformer(client, namespace, cmName)
	svc := newArgoCDService(t, client, newDynamicClient(t))
	factory := api.NewFactory(settings.GetFactorySettings(svc, secretName, cmName, false), namespace, secrets, configMaps)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go secrets.Run(ctx.Done())
	go configMaps.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), secrets.HasSynced, configMaps.HasSynced) {
		t.Fatal("informers did not sync")
	}
	a, err := factory.GetAPI()
	if err != nil {
		t.Fatalf("Argo CD could not build the notifications API from the bundle: %v", err)
	}
	return a
}

// newDynamicClient is a fake cluster's dynamic client holding the AppProjects
// the fixtures name (Argo CD 3.x gives templates the Application's project as
// appProject) and objs.
func newDynamicClient(t testing.TB, objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"default", "web-team"} {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
			"metadata": map[string]any{"name": name, "namespace": namespace},
			"spec":     map[string]any{"description": "project " + name, "sourceRepos": []any{"*"}},
		}})
	}
	return dynamicfake.NewSimpleDynamicClient(scheme, objs...)
}

// newArgoCDService is Argo CD's own notification service
// (util/notification/argocd), as the notifications controller builds it. Its
// repo-server address is a closed loopback port: routeguard's templates must
// not need the repo-server (repo.GetCommitMetadata, repo.GetAppDetails), and
// a template that did would fail to render.
func newArgoCDService(t testing.TB, k8s kubernetes.Interface, dyn *dynamicfake.FakeDynamicClient) service.Service {
	t.Helper()
	svc, err := service.NewArgoCDService(k8s, dyn, namespace, repoapiclient.NewRepoServerClientset("127.0.0.1:1", 5, utiltls.Configuration{DisableTLS: true}))
	if err != nil {
		t.Fatalf("Argo CD's notification service: %v", err)
	}
	return svc
}

// loadApp reads an Application fixture and replaces the placeholders
// "@nasty", "@nasty-name" and "@comparison-error" in its strings.
func loadApp(t testing.TB, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture must be an Application Argo CD v3 can write: it decodes
	// strictly into v3's type (a field v3 does not have is an error).
	var typed v1alpha1.Application
	if err := yaml.UnmarshalStrict(raw, &typed); err != nil {
		t.Fatalf("%s is not an Argo CD v3 Application: %v", name, err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return replacePlaceholders(obj, map[string]string{
		"@nasty":            nasty,
		"@nasty-name":       nastyName,
		"@comparison-error": comparisonError(t),
	}).(map[string]any)
}

func comparisonError(t testing.TB) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "routeguard-comparison-error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(string(raw), "\n")
}

func replacePlaceholders(v any, with map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = replacePlaceholders(e, with)
		}
	case []any:
		for i, e := range x {
			x[i] = replacePlaceholders(e, with)
		}
	case string:
		if r, ok := with[x]; ok {
			return r
		}
	}
	return v
}

// set writes value at a path of nested maps, creating maps on the way.
func set(obj map[string]any, value any, path ...string) {
	cur := obj
	for _, p := range path[:len(path)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = value
}

// captureErrors records what Argo CD's code logs at error level: trigger
// conditions that fail to evaluate are logged, not returned.
func captureErrors(t testing.TB) func() []string {
	t.Helper()
	hook := logtest.NewGlobal()
	t.Cleanup(hook.Reset)
	return func() []string {
		var out []string
		for _, e := range hook.AllEntries() {
			if e.Level <= logrus.ErrorLevel {
				out = append(out, e.Message)
			}
		}
		hook.Reset()
		return out
	}
}
