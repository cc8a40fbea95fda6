package notifications

import (
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/argoproj/notifications-engine/pkg/services"
)

// BenchmarkSlackSend renders one template for one Application and sends it
// through Argo CD's Slack service to the loopback fake (what the controller
// does per notification).
func BenchmarkSlackSend(b *testing.B) {
	quiet(b)
	for _, c := range []struct{ fixture, template string }{
		{"app-sync-failed.yaml", "routeguard-sync-failed"},
		{"app-comparison-error.yaml", "routeguard-comparison-error"},
		{"app-routes-degraded.yaml", "routeguard-route-degraded"},
		{"app-synced-healthy.yaml", "routeguard-sync-succeeded"},
	} {
		b.Run(c.template, func(b *testing.B) {
			slack := newFakeSlack(b)
			a := newAPI(b, slack, apiOptions{argocdURL: argocdURL})
			app := loadApp(b, c.fixture)
			dest := services.Destination{Service: "slack", Recipient: "bench-" + c.template}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := a.Send(app, []string{c.template}, dest); err != nil {
					b.Fatal(err)
				}
				if i%256 == 0 {
					slack.takePosts()
				}
			}
		})
	}
}

// BenchmarkTriggers evaluates all four routeguard triggers on one Application.
func BenchmarkTriggers(b *testing.B) {
	quiet(b)
	slack := newFakeSlack(b)
	a := newAPI(b, slack, apiOptions{argocdURL: argocdURL})
	app := loadApp(b, "app-routes-degraded.yaml")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, name := range routeguardTriggers {
			if _, err := a.RunTrigger(name, app); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// quiet keeps Argo CD's informational logs out of the benchmark output.
func quiet(b *testing.B) {
	level := logrus.GetLevel()
	logrus.SetLevel(logrus.WarnLevel)
	b.Cleanup(func() { logrus.SetLevel(level) })
}
