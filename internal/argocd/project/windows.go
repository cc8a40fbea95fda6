package project

import (
	"fmt"
	"time"
	_ "time/tzdata" // sync windows' time zones, the same on every machine

	"github.com/robfig/cron/v3"
)

// WindowApp is what sync windows match on: the Application's name and its
// destination as written (SyncWindows.Matches).
type WindowApp struct {
	Name        string
	Server      string
	ClusterName string
	Namespace   string
}

// WindowVerdict says whether the project's sync windows let an automated
// sync of an Application run at a time.
type WindowVerdict struct {
	Blocked bool
	// Windows are the indexes in spec.syncWindows of the windows that
	// decided: the active deny windows, or the inactive allow windows.
	Windows []int
	Why     string
	// Err is an invalid schedule or duration of a window that matches the
	// Application: Argo CD then blocks every sync of it.
	Err error
}

// AutomatedSync is syncWindowPreventsSync for an automated sync (not
// manual, no operation running) at now: SyncWindows.Matches, then CanSync.
func (p *Project) AutomatedSync(app WindowApp, now time.Time) WindowVerdict {
	matching := p.matchingWindows(app)
	if len(matching) == 0 {
		return WindowVerdict{}
	}
	var activeDeny, activeAllow, inactiveAllow []int
	for _, i := range matching {
		w := p.Spec.SyncWindows[i]
		active, err := w.active(now)
		if err != nil {
			return WindowVerdict{Blocked: true, Windows: []int{i}, Err: err,
				Why: fmt.Sprintf("spec.syncWindows[%d] is invalid (%v): Argo CD blocks every sync of the Applications it matches", i, err)}
		}
		switch {
		case active && w.Kind == "deny":
			activeDeny = append(activeDeny, i)
		case active && w.Kind == "allow":
			activeAllow = append(activeAllow, i)
		case !active && w.Kind == "allow":
			inactiveAllow = append(inactiveAllow, i)
		}
	}
	switch {
	case len(activeDeny) > 0:
		return WindowVerdict{Blocked: true, Windows: activeDeny, Why: "a deny window is active"}
	case len(activeAllow) > 0:
		return WindowVerdict{}
	case len(inactiveAllow) > 0:
		return WindowVerdict{Blocked: true, Windows: inactiveAllow, Why: "no allow window that matches it is active"}
	}
	return WindowVerdict{}
}

// matchingWindows is SyncWindows.Matches: a window matches by application
// name, else cluster (destination name or server), else namespace; with
// andOperator every list that is set must match.
func (p *Project) matchingWindows(app WindowApp) []int {
	var out []int
	for i, w := range p.Spec.SyncWindows {
		matched, isSet := false, false
		if len(w.Applications) > 0 {
			isSet = true
			for _, a := range w.Applications {
				if projectGlob(a, app.Name, false) {
					matched = true
					break
				}
			}
		}
		if w.UseAndOperator && !matched && isSet {
			continue
		} else if !w.UseAndOperator && matched {
			out = append(out, i)
			continue
		}
		if len(w.Clusters) > 0 {
			matched, isSet = false, true
			for _, c := range w.Clusters {
				if (app.ClusterName != "" && projectGlob(c, app.ClusterName, false)) || (app.Server != "" && projectGlob(c, app.Server, false)) {
					matched = true
					break
				}
			}
		}
		if isSet && w.UseAndOperator && !matched {
			continue
		} else if !w.UseAndOperator && matched {
			out = append(out, i)
			continue
		}
		if len(w.Namespaces) > 0 {
			matched = false
			for _, n := range w.Namespaces {
				if projectGlob(n, app.Namespace, false) {
					matched = true
					break
				}
			}
		}
		if matched {
			out = append(out, i)
		}
	}
	return out
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// active is SyncWindow.active: the window's last start (its schedule read
// in its time zone, an unknown zone as UTC) lies less than its duration
// before now. Argo CD takes the zone's offset at the current time; so
// does this, at now.
func (w SyncWindow) active(now time.Time) (bool, error) {
	now = now.UTC()
	schedule, err := cronParser.Parse(w.Schedule)
	if err != nil {
		return false, fmt.Errorf("cannot parse schedule '%s': %w", w.Schedule, err)
	}
	duration, err := time.ParseDuration(w.Duration)
	if err != nil {
		return false, fmt.Errorf("cannot parse duration '%s': %w", w.Duration, err)
	}
	loc, err := time.LoadLocation(w.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	_, offset := now.In(loc).Zone()
	tz := time.Duration(offset) * time.Second
	next := schedule.Next(now.Add(tz - duration))
	return next.Before(now.Add(tz)), nil
}
