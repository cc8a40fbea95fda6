package gen

import (
	"fmt"
	"strings"
)

// The CEL twins are built here rather than written by hand. Flux's CEL
// environment (fluxcd/pkg/runtime/cel) has no bindings extension (cel.bind)
// and no user functions, so a value used twice is bound with a one-element
// comprehension, [value].all(name, ...): the object's generation once per
// expression, the current conditions of a parent, listener or the Gateway
// once each. Every access is guarded with type() so that no status shape
// makes an expression fail to evaluate; the one error left is an absent
// status (see docs/health.md). The expressions carry // comments, which
// CEL's parser skips.

// list is x.f when x is a map and x.f a list, else [].
func list(x, f string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && type(%[1]s.?%[2]s.orValue(null)) == list ? %[1]s.%[2]s : [])`, x, f)
}

// mapish is true for a map, or an empty list (Lua cannot tell {} from []).
func mapish(x string) string {
	return fmt.Sprintf(`(type(%[1]s) == map || %[1]s == [])`, x)
}

// malformedList is true when map p has field f that is neither a list nor {}.
func malformedList(p, f string) string {
	return fmt.Sprintf(`(type(%[1]s) == map && %[1]s.?%[2]s.orValue(null) != null && !(type(%[1]s.%[2]s) == list || %[1]s.%[2]s == {}))`, p, f)
}

// stale is true when condition c was reported for an older generation than
// gen (bound by withGeneration); observedGeneration may be a number or a
// numeric string.
func stale(c string) string {
	return fmt.Sprintf(`(type(gen) == int || type(gen) == double) && [%s.?observedGeneration.orValue(null)].all(og, (type(og) == int || type(og) == double) && og < gen || type(og) == string && og.matches('^[0-9]+$') && int(og) < gen)`, c)
}

// fresh is the conditions of conds that are objects and not stale.
func fresh(conds string) string {
	return fmt.Sprintf(`%s.filter(c, type(c) == map && !(%s))`, conds, stale("c"))
}

// is is true when cs (current conditions) holds one of type t with status s.
func is(cs, t, s string) string {
	return fmt.Sprintf(`%s.exists(c, c.?type.orValue('') == '%s' && c.?status.orValue('') == '%s')`, cs, t, s)
}

// notTrue is true when cs holds one of type t whose status is not True.
func notTrue(cs, t string) string {
	return fmt.Sprintf(`%s.exists(c, c.?type.orValue('') == '%s' && c.?status.orValue('') != 'True')`, cs, t)
}

// refused is true when cs holds an Accepted or ResolvedRefs that is False
// for a reason other than Pending, or, with programmed, a Programmed that is
// False for a reason the Gateway API defines as failure (_templates/gateway.lua).
func refused(cs string, programmed bool) string {
	s := fmt.Sprintf(`c.?type.orValue('') in ['Accepted', 'ResolvedRefs'] && c.?status.orValue('') == 'False' && c.?reason.orValue('') != 'Pending'`)
	if programmed {
		s += `
    || c.?type.orValue('') == 'Programmed' && c.?status.orValue('') == 'False' && c.?reason.orValue('') in ['Invalid', 'NoResources', 'AddressNotUsable']`
	}
	return fmt.Sprintf("%s.exists(c,\n    %s)", cs, s)
}

// let binds value to name in body.
func let(name, value, body string) string {
	return fmt.Sprintf("[%s].all(%s,\n%s)", value, name, body)
}

// withGeneration binds gen, the object's generation, in body.
func withGeneration(body string) string {
	return "// gen: the object's generation; a condition reported for an older one is stale\n" +
		let("gen", "metadata.?generation.orValue(null)", body)
}

type celExprs struct{ inProgress, failed, current string }

func routeCEL(k kind) celExprs {
	entries := list("status", k.list)
	conds := list("p", "conditions")
	failed := withGeneration(fmt.Sprintf(`// status is not an object, or status.%[1]s not a list
!(status == null || %[2]s
|| %[3]s
|| %[4]s.exists(p,
  // an entry that is not an object, or whose conditions are not a list
  !%[5]s || %[6]s
  // a current Accepted or ResolvedRefs that is False (not Pending)
  || [%[7]s].all(cs, %[8]s))`,
		k.list, mapish("status")[1:], malformedList("status", k.list), entries, mapish("p"), malformedList("p", "conditions"),
		fresh(conds), refused("cs", false)))

	resolved := "!" + notTrue("cs", "ResolvedRefs")
	resolvedDoc := "no current ResolvedRefs other than True"
	if k.needResolved {
		resolved = is("cs", "ResolvedRefs", "True")
		resolvedDoc = "ResolvedRefs True"
	}
	ready := fmt.Sprintf(`type(p) == map && [%s].all(cs,
    %s
    && %s
    && !%s)`, fresh(conds), is("cs", "Accepted", "True"), resolved, notTrue("cs", "Programmed"))
	var states, verdict string
	if k.skipStale {
		states = fmt.Sprintf(`%s.map(p,
  %s
  ? 'ready'
  : type(p) == map && %s.exists(c, type(c) == map && c.?type.orValue('') == 'Accepted' && %s) ? 'stale' : 'waiting')`, entries, ready, conds, stale("c"))
		verdict = `// one entry is ready, and every other one is ready or stale (left aside: its
// controller may never update it)
&& states.exists(s, s == 'ready') && states.all(s, s != 'waiting')`
	} else {
		states = fmt.Sprintf(`%s.map(p,
  %s
  ? 'ready' : 'waiting')`, entries, ready)
		verdict = `// every entry is ready
&& size(states) > 0 && states.all(s, s == 'ready')`
	}
	current := fmt.Sprintf(`type(status) == map
%s`, verdict)
	if k.specRefs != "" {
		match := fmt.Sprintf(`p.%[1]s.?name.orValue('') == r.?name.orValue('') && (ns == '' || p.%[1]s.?namespace.orValue(ns) == r.?namespace.orValue(ns)) && p.%[1]s.?sectionName.orValue('') == r.?sectionName.orValue('') && p.%[1]s.?port.orValue(0) == r.?port.orValue(0)`, k.ref)
		current += fmt.Sprintf(`
// every spec.%[1]s entry has its status entry
&& [metadata.?namespace.orValue('')].all(ns, %[2]s.all(r, type(r) != map
   || %[3]s.exists(p, type(p) == map && type(p.?%[4]s.orValue(null)) == map && %[5]s)))`, k.specRefs, list("spec", k.specRefs), entries, k.ref, match)
	}
	current = withGeneration(fmt.Sprintf(`// each entry of status.%s: 'ready' (a current Accepted True, %s, no
// current Programmed other than True), 'stale' (its Accepted is for an older
// generation) or 'waiting'
%s`, k.list, resolvedDoc, let("states", states, current)))
	current = strings.ReplaceAll(current, entries, k.list)
	current = "// " + k.list + ": status." + k.list + ", [] when it is not a list\n" + let(k.list, entries, current)
	return celExprs{failed: failed, current: current}
}

func gatewayCEL() celExprs {
	sc := list("status", "conditions")
	ls := list("status", "listeners")
	lc := list("l", "conditions")
	pickedUp := sc + `.exists(c, type(c) == map && c.?type.orValue('') == 'Accepted' && !(c.?reason.orValue('') == 'Pending' && c.?observedGeneration.orValue(null) == null))`
	failed := withGeneration(fmt.Sprintf(`// status is not an object, or its conditions or listeners not a list
!(status == null || %[1]s
|| %[2]s
|| %[3]s
// once a controller picked the Gateway up (an Accepted that is not the
// API server's default Pending):
|| %[4]s
   // a current Accepted or ResolvedRefs False (not Pending), or Programmed
   // False as Invalid, NoResources or AddressNotUsable
   && ([%[5]s].all(cs, %[6]s)
       // a listener that is not an object, with conditions that are not a
       // list, refused as above, or Conflicted
       || %[7]s.exists(l, !%[8]s || %[9]s
          || [%[10]s].all(cs, %[6]s
             || %[11]s)))`,
		mapish("status")[1:], malformedList("status", "conditions"), malformedList("status", "listeners"), pickedUp,
		fresh(sc), refused("cs", true), ls, mapish("l"), malformedList("l", "conditions"), fresh(lc), is("cs", "Conflicted", "True")))
	ready := func(cs string) string {
		return fmt.Sprintf("%s\n    && %s\n    && !%s", is(cs, "Accepted", "True"), is(cs, "Programmed", "True"), notTrue(cs, "ResolvedRefs"))
	}
	current := withGeneration(fmt.Sprintf(`type(status) == map
// picked up by a controller
&& %[1]s
// the Gateway and each listener: a current Accepted and Programmed True, no
// current ResolvedRefs other than True
&& [%[2]s].all(cs, %[3]s)
&& %[4]s.all(l, type(l) == map && [%[5]s].all(cs, %[3]s))
// every listener of the spec has its status
&& %[6]s.all(sl, !(type(sl) == map && type(sl.?name.orValue(null)) == string && sl.name != '')
   || %[4]s.exists(l, type(l) == map && l.?name.orValue(null) == sl.name))`,
		pickedUp, fresh(sc), ready("cs"), ls, fresh(lc), list("spec", "listeners")))
	return celExprs{failed: failed, current: current}
}

func istioCEL() celExprs {
	og := `status.?observedGeneration.orValue(null)`
	inProgress := fmt.Sprintf(`// istiod has not processed this generation yet
type(status) == map && (type(metadata.?generation.orValue(null)) == int || type(metadata.?generation.orValue(null)) == double)
&& ((type(%[1]s) == int || type(%[1]s) == double) && status.observedGeneration != metadata.generation
    || type(%[1]s) == string && status.observedGeneration.matches('^[0-9]+$') && int(status.observedGeneration) != metadata.generation)`, og)
	vm := list("status", "validationMessages")
	failed := fmt.Sprintf(`// status is not an object, or its validationMessages or conditions not a list
!(status == null || %s
|| %s
|| %s
// a validation message that is not an object, or at level ERROR
|| %s.exists(m, !%s || type(m) == map && m.?level.orValue('') == 'ERROR')`,
		mapish("status")[1:], malformedList("status", "validationMessages"), malformedList("status", "conditions"), vm, mapish("m"))
	current := withGeneration(fmt.Sprintf(`(status == null || %s
// no Reconciled condition that is stale or not True
&& !%s.exists(c, type(c) == map && c.?type.orValue('') == 'Reconciled' && (%s || c.?status.orValue('') != 'True'))`,
		mapish("status")[1:], list("status", "conditions"), stale("c")))
	return celExprs{inProgress: inProgress, failed: failed, current: current}
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
