package gen

import (
	"fmt"
	"strings"
)

// The CEL twins are built here rather than written by hand: CEL has no local
// bindings in Flux's environment, so the same guards repeat many times. Every
// access is guarded with type() so that no status shape makes an expression
// fail to evaluate; the one error left is an absent status (see docs/health.md).

const celGeneration = `(type(metadata.?generation.orValue(null)) == int || type(metadata.?generation.orValue(null)) == double)`

// counts is true when c is a condition of type t that is not older than the
// object's generation (observedGeneration may be an integer or numeric string).
func counts(c, t string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && %[1]s.?type.orValue('') == '%[2]s' && !(%[3]s && ((type(%[1]s.?observedGeneration.orValue(null)) == int || type(%[1]s.?observedGeneration.orValue(null)) == double) && %[1]s.observedGeneration < metadata.generation || type(%[1]s.?observedGeneration.orValue(null)) == string && %[1]s.observedGeneration.matches('^[0-9]+$') && int(%[1]s.observedGeneration) < metadata.generation)))`, c, t, celGeneration)
}

// mapish is true for a map, or an empty list (Lua cannot tell {} from []).
func mapish(x string) string {
	return fmt.Sprintf(`(type(%[1]s) == map || %[1]s == [])`, x)
}

// malformedList is true when map p has field f that is neither a list nor {}.
func malformedList(p, f string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && %[1]s.?%[2]s.orValue(null) != null && !(type(%[1]s.%[2]s) == list || %[1]s.%[2]s == {}))`, p, f)
}

// list is p.f when p is a map and p.f a list, else [].
func list(p, f string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && type(%[1]s.?%[2]s.orValue(null)) == list ? %[1]s.%[2]s : [])`, p, f)
}

// condIs is true when conds holds a counting condition of one of types with status s.
func condIs(conds, v string, types []string, s string) string {
	var any []string
	for _, t := range types {
		any = append(any, counts(v, t))
	}
	return fmt.Sprintf(`%s.exists(%s, (%s) && %s.?status.orValue('') == '%s')`, conds, v, strings.Join(any, " || "), v, s)
}

// condFailed is true when conds holds a counting condition of one of types
// that is False for a reason other than Pending.
func condFailed(conds, v string, types []string) string {
	var any []string
	for _, t := range types {
		any = append(any, counts(v, t))
	}
	return fmt.Sprintf(`%s.exists(%s, (%s) && %s.?status.orValue('') == 'False' && %s.?reason.orValue('') != 'Pending')`, conds, v, strings.Join(any, " || "), v, v)
}

// stale is true when c is a condition of type t reported for an older
// generation than the object's (the opposite of counts for that type).
func stale(c, t string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && %[1]s.?type.orValue('') == '%[2]s' && !%[3]s)`, c, t, counts(c, t))
}

// notTrue is true when conds holds a counting condition of type t whose
// status is not True.
func notTrue(conds, v, t string) string {
	return fmt.Sprintf(`%s.exists(%s, %s && %s.?status.orValue('') != 'True')`, conds, v, counts(v, t), v)
}

// programmedFailed is true when conds holds a counting Programmed=False with
// a reason the Gateway API defines as failure (see _templates/gateway.lua).
func programmedFailed(conds, v string) string {
	return fmt.Sprintf(`%s.exists(%s, %s && %s.?status.orValue('') == 'False' && %s.?reason.orValue('') in ['Invalid', 'NoResources', 'AddressNotUsable'])`,
		conds, v, counts(v, "Programmed"), v, v)
}

type celExprs struct{ inProgress, failed, current string }

func routeCEL(k kind) celExprs {
	entries := list("status", k.list)
	conds := list("p", "conditions")
	failed := []string{
		`!(status == null || ` + mapish("status")[1:],
		malformedList("status", k.list),
		fmt.Sprintf(`%s.exists(p, !%s || %s || %s)`, entries, mapish("p"), malformedList("p", "conditions"),
			condFailed(conds, "c", []string{"Accepted", "ResolvedRefs"})),
	}
	resolved := `!` + notTrue(conds, "c", "ResolvedRefs")
	if k.needResolved {
		resolved = condIs(conds, "c", []string{"ResolvedRefs"}, "True")
	}
	ready := fmt.Sprintf(`type(p) == map && %s && %s && !%s`, condIs(conds, "c", []string{"Accepted"}, "True"), resolved, notTrue(conds, "c", "Programmed"))
	current := []string{
		`type(status) == map`,
		`size(` + entries + `) > 0`,
		fmt.Sprintf(`%s.all(p, %s)`, entries, ready),
	}
	if k.skipStale {
		// An entry whose Accepted is stale is left aside, as long as one
		// entry is ready for the current generation.
		current = []string{
			`type(status) == map`,
			fmt.Sprintf(`%s.exists(p, %s)`, entries, ready),
			fmt.Sprintf(`%s.all(p, type(p) == map && %s.exists(c, %s) || %s)`, entries, conds, stale("c", "Accepted"), ready),
		}
	}
	if k.specRefs != "" {
		ns := `metadata.?namespace.orValue('')`
		match := fmt.Sprintf(`p.%[1]s.?name.orValue('') == r.?name.orValue('') && (%[2]s == '' || p.%[1]s.?namespace.orValue(%[2]s) == r.?namespace.orValue(%[2]s)) && p.%[1]s.?sectionName.orValue('') == r.?sectionName.orValue('') && p.%[1]s.?port.orValue(0) == r.?port.orValue(0)`, k.ref, ns)
		current = append(current, fmt.Sprintf(`%s.all(r, type(r) != map || %s.exists(p, type(p) == map && type(p.?%s.orValue(null)) == map && %s))`,
			list("spec", k.specRefs), entries, k.ref, match))
	}
	return celExprs{failed: strings.Join(failed, "\n|| "), current: strings.Join(current, "\n&& ")}
}

func gatewayCEL() celExprs {
	sc := list("status", "conditions")
	ls := list("status", "listeners")
	lc := list("l", "conditions")
	pickedUp := sc + `.exists(c, type(c) == map && c.?type.orValue('') == 'Accepted' && !(c.?reason.orValue('') == 'Pending' && c.?observedGeneration.orValue(null) == null))`
	listenerFailed := condFailed(lc, "c", []string{"Accepted", "ResolvedRefs"}) + ` || ` + programmedFailed(lc, "c") + ` || ` +
		lc + `.exists(c, ` + counts("c", "Conflicted") + ` && c.?status.orValue('') == 'True')`
	failed := []string{
		`!(status == null || ` + mapish("status")[1:],
		malformedList("status", "conditions"),
		malformedList("status", "listeners"),
		fmt.Sprintf("%s\n   && (%s\n       || %s\n       || %s.exists(l, !%s || %s || %s))", pickedUp,
			condFailed(sc, "c", []string{"Accepted", "ResolvedRefs"}), programmedFailed(sc, "c"), ls, mapish("l"), malformedList("l", "conditions"), listenerFailed),
	}
	current := []string{
		`type(status) == map`,
		pickedUp,
		condIs(sc, "c", []string{"Accepted"}, "True"),
		condIs(sc, "c", []string{"Programmed"}, "True"),
		`!` + notTrue(sc, "c", "ResolvedRefs"),
		fmt.Sprintf(`%s.all(l, type(l) == map && %s && %s && !%s.exists(c, %s && c.?status.orValue('') != 'True'))`, ls,
			condIs(lc, "c", []string{"Accepted"}, "True"), condIs(lc, "c", []string{"Programmed"}, "True"), lc, counts("c", "ResolvedRefs")),
		fmt.Sprintf(`%s.all(sl, !(type(sl) == map && type(sl.?name.orValue(null)) == string && sl.name != '') || %s.exists(l, type(l) == map && l.?name.orValue(null) == sl.name))`,
			list("spec", "listeners"), ls),
	}
	return celExprs{failed: strings.Join(failed, "\n|| "), current: strings.Join(current, "\n&& ")}
}

func istioCEL() celExprs {
	og := `status.?observedGeneration.orValue(null)`
	inProgress := fmt.Sprintf(`type(status) == map && %s
&& ((type(%s) == int || type(%s) == double) && status.observedGeneration != metadata.generation
    || type(%s) == string && status.observedGeneration.matches('^[0-9]+$') && int(status.observedGeneration) != metadata.generation)`, celGeneration, og, og, og)
	vm := list("status", "validationMessages")
	failed := []string{
		`!(status == null || ` + mapish("status")[1:],
		malformedList("status", "validationMessages"),
		malformedList("status", "conditions"),
		fmt.Sprintf(`%s.exists(m, !%s || type(m) == map && m.?level.orValue('') == 'ERROR')`, vm, mapish("m")),
	}
	current := []string{
		`(status == null || ` + mapish("status")[1:],
		`!` + list("status", "conditions") + `.exists(c, type(c) == map && c.?type.orValue('') == 'Reconciled' && !(` + counts("c", "Reconciled") + ` && c.?status.orValue('') == 'True'))`,
	}
	return celExprs{inProgress: inProgress, failed: strings.Join(failed, "\n|| "), current: strings.Join(current, "\n&& ")}
}

// renderCEL writes the health.cel.yaml of k.
func renderCEL(k kind) string {
	var e celExprs
	var note string
	switch k.template {
	case "route":
		e = routeCEL(k)
		note = "# No clock in CEL: where the Lua check turns Degraded after waiting " + "5 minutes for a\n# controller, this stays InProgress until the Kustomization's timeout.\n"
	case "gateway":
		e = gatewayCEL()
		note = "# No clock in CEL: where the Lua check turns Degraded after waiting 5 minutes for a\n# controller to pick the Gateway up, this stays InProgress until the Kustomization's timeout.\n"
	case "istio":
		e = istioCEL()
		note = "# Use only with Istio status reporting on (PILOT_ENABLE_STATUS=true): without it the\n# objects have no status and kustomize-controller cannot evaluate these expressions.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# routeguard health check for %s/%s as Flux healthCheckExprs (CEL), the twin of\n", k.group, k.kind)
	b.WriteString("# health.lua beside it, tested with the same fixtures. Generated by\n# `go generate ./lua-health`; edit lua-health/internal/gen/cel.go.\n")
	b.WriteString("# An object without status cannot be evaluated: Flux passes the object's top-level\n# fields as CEL variables, and an absent variable is an evaluation error.\n")
	b.WriteString(note)
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\n", k.apiVersion, k.kind)
	for _, f := range []struct{ name, expr string }{{"inProgress", e.inProgress}, {"failed", e.failed}, {"current", e.current}} {
		if f.expr == "" {
			continue
		}
		fmt.Fprintf(&b, "%s: |-\n", f.name)
		for _, line := range strings.Split(f.expr, "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	return b.String()
}
