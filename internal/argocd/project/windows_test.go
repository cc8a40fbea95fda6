package project

import (
	"testing"
	"time"
)

func TestAutomatedSync(t *testing.T) {
	now := time.Date(2026, 3, 10, 14, 30, 0, 0, time.UTC) // a Tuesday
	app := WindowApp{Name: "web", Server: "https://kubernetes.default.svc", Namespace: "shop"}
	tests := []struct {
		name    string
		windows []SyncWindow
		app     WindowApp
		blocked bool
		decided []int
	}{
		{name: "no windows", app: app},
		{name: "active deny", windows: []SyncWindow{{Kind: "deny", Schedule: "0 14 * * *", Duration: "1h", Namespaces: []string{"shop"}}}, app: app, blocked: true, decided: []int{0}},
		{name: "deny over", windows: []SyncWindow{{Kind: "deny", Schedule: "0 13 * * *", Duration: "1h", Namespaces: []string{"shop"}}}, app: app},
		{name: "deny for another app", windows: []SyncWindow{{Kind: "deny", Schedule: "* * * * *", Duration: "1h", Applications: []string{"api-*"}}}, app: app},
		{name: "inactive allow blocks", windows: []SyncWindow{{Kind: "allow", Schedule: "0 2 * * *", Duration: "1h", Applications: []string{"*"}}}, app: app, blocked: true, decided: []int{0}},
		{name: "active allow lets it", windows: []SyncWindow{{Kind: "allow", Schedule: "0 2 * * *", Duration: "1h", Applications: []string{"*"}},
			{Kind: "allow", Schedule: "0 14 * * 2", Duration: "2h", Clusters: []string{"https://kubernetes.default.svc"}}}, app: app},
		{name: "deny beats active allow", windows: []SyncWindow{{Kind: "allow", Schedule: "* * * * *", Duration: "1h", Applications: []string{"*"}},
			{Kind: "deny", Schedule: "29 14 * * *", Duration: "2m", Applications: []string{"web"}}}, app: app, blocked: true, decided: []int{1}},
		{name: "time zone moves the window", windows: []SyncWindow{{Kind: "deny", Schedule: "0 15 * * *", Duration: "1h", TimeZone: "Europe/Paris", Applications: []string{"*"}}}, app: app, blocked: true, decided: []int{0}},
		{name: "and operator needs every list", windows: []SyncWindow{{Kind: "deny", Schedule: "* * * * *", Duration: "1h", Applications: []string{"web"}, Namespaces: []string{"other"}, UseAndOperator: true}}, app: app},
		{name: "invalid schedule blocks", windows: []SyncWindow{{Kind: "allow", Schedule: "not cron", Duration: "1h", Applications: []string{"*"}}}, app: app, blocked: true, decided: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Project{Name: "p", Spec: Spec{SyncWindows: tt.windows}}
			v := p.AutomatedSync(tt.app, now)
			if v.Blocked != tt.blocked || len(v.Windows) != len(tt.decided) {
				t.Fatalf("AutomatedSync = %+v, want blocked %v by %v", v, tt.blocked, tt.decided)
			}
			for i := range tt.decided {
				if v.Windows[i] != tt.decided[i] {
					t.Errorf("decided by %v, want %v", v.Windows, tt.decided)
				}
			}
		})
	}
}
