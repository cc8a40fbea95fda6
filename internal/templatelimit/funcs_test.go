package templatelimit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"text/template"
)

// render executes src with Sprig's functions and Funcs(max, Seeded) laid over
// them, as Helm and the ApplicationSet templating do.
func render(t *testing.T, max int64, src string, data any) (string, error) {
	t.Helper()
	fm := template.FuncMap{}
	for k, v := range sprigFuncs {
		fm[k] = v
	}
	for k, v := range Funcs(max, Seeded) {
		fm[k] = v
	}
	tpl, err := template.New("t.yaml").Funcs(fm).Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	w := &Writer{Max: max}
	err = tpl.Execute(w, data)
	return w.String(), err
}

// Each function refuses a result past the limit before making it; the
// counts below would take gigabytes (or forever) if made.
func TestFuncsRefuseHugeResults(t *testing.T) {
	for _, tc := range []struct{ src, fn string }{
		{`{{ repeat 6000000000 "a" }}`, "repeat"},
		{`{{ "a" | repeat 9223372036854775807 }}`, "repeat"},
		{`{{ indent 6000000000 "a" }}`, "indent"},
		{`{{ nindent 1000 (repeat 2000 "\n") }}`, "nindent"},
		{`{{ replace "" (repeat 2000 "x") (repeat 2000 "y") }}`, "replace"},
		{`{{ randAlphaNum 6000000000 }}`, "randAlphaNum"},
		{`{{ randAlpha 6000000000 }}`, "randAlpha"},
		{`{{ randAscii 6000000000 }}`, "randAscii"},
		{`{{ randNumeric 6000000000 }}`, "randNumeric"},
		{`{{ randBytes 6000000000 }}`, "randBytes"},
		{`{{ range until 6000000000 }}{{ end }}`, "until"},
		{`{{ range until -6000000000 }}{{ end }}`, "until"},
		{`{{ range untilStep 0 6000000000 1 }}{{ end }}`, "untilStep"},
		{`{{ range untilStep -9223372036854775808 9223372036854775807 1 }}{{ end }}`, "untilStep"},
		{`{{ seq 6000000000 }}`, "seq"},
		{`{{ seq 5 -6000000000 }}`, "seq"},
		{`{{ seq 0 1 6000000000 }}`, "seq"},
		{`{{ $s := repeat 100000 "a" }}{{ join "" (list $s $s $s $s $s $s $s $s $s $s $s) }}`, "join"},
		{`{{ $s := repeat 300000 "a" }}{{ quote $s $s $s $s }}`, "quote"},
		{`{{ $s := repeat 300000 "a" }}{{ squote $s $s $s $s }}`, "squote"},
		{`{{ $s := repeat 300000 "a" }}{{ cat $s $s $s $s }}`, "cat"},
		{`{{ $s := "ab" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end }}`, "print"},
		{`{{ $s := "ab" }}{{ range until 40 }}{{ $s = println $s $s }}{{ end }}`, "println"},
		{`{{ $s := "ab" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}`, "printf"},
		{`{{ printf "%[1]s%[1]s%[1]s%[1]s%[1]s" (repeat 300000 "a") }}`, "printf"},
		{`{{ printf (repeat 2 "%*s") 1000000 "a" 1000000 "b" }}`, "printf"},
		{`{{ printf (repeat 3 "%[1]*[2]s") 1000000 "a" }}`, "printf"},
		{`{{ printf (repeat 3 "%.[1]*[2]f") 1000000 2.5 }}`, "printf"},
		{`{{ printf (repeat 3 "%99999999999d") 1 2 3 }}`, "printf"},
		{`{{ splitList "" (repeat 100000 "a") }}`, "splitList"},
		{`{{ split "" (repeat 100000 "a") }}`, "split"},
		{`{{ splitn "" 100000 (repeat 100000 "a") }}`, "splitn"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			out, err := render(t, 1<<20, tc.src, nil)
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Func != tc.fn || tl.Max != 1<<20 {
				t.Fatalf("got %d bytes, error %v; want a TooLargeError from %s", len(out), err, tc.fn)
			}
			if !strings.Contains(err.Error(), tc.fn+" would make") || !strings.Contains(err.Error(), "--max-file-size") {
				t.Fatalf("message %q does not name the function and the flag", err)
			}
		})
	}
}

// Below the limit every function returns exactly what Sprig's does.
func TestFuncsMatchSprig(t *testing.T) {
	for _, src := range []string{
		`{{ repeat 3 "ab" }}`, `{{ repeat 0 "ab" }}`,
		`{{ indent 2 "a\nb" }}`, `{{ nindent 4 "a\nb\n" }}`, `{{ indent 0 "" }}`,
		`{{ replace "a" "bb" "banana" }}`, `{{ replace "" "-" "héllo" }}`, `{{ replace "an" "" "banana" }}`,
		`{{ join "," (list 1 "b" nil 2.5) }}`, `{{ join "-" (list) }}`,
		`{{ quote "a" 1 nil "c" }}`, `{{ squote "a" 1 }}`, `{{ cat "a" nil 2 "b" }}`,
		`{{ print "a" 1 2 "b" }}`, `{{ println "a" 1 }}`,
		`{{ printf "%s-%05d-%.2f-%q-%v" "x" 42 3.14159 "y" (list 1 2) }}`, `{{ printf "%*s|%-*s|" 5 "a" 4 "b" }}`,
		`{{ printf "%[2]s %[1]s" "a" "b" }}`, `{{ printf "100%%" }}`, `{{ printf "%!" }}`, `{{ printf "%[" }}`, `{{ printf "%[2]*[1]d|" 7 5 }}`,
		`{{ printf "%-8.3f|%+d|%x|%#v" 3.14159 5 "hi" (list 1) }}`, `{{ printf "%" }}`, `{{ printf "%[0]d %[x]d" 1 }}`,
		`{{ until 5 }}`, `{{ until -3 }}`, `{{ until 0 }}`,
		`{{ untilStep 0 10 3 }}`, `{{ untilStep 10 0 -4 }}`, `{{ untilStep 0 10 0 }}`, `{{ untilStep 0 10 -1 }}`,
		`{{ seq 5 }}`, `{{ seq -2 }}`, `{{ seq 2 5 }}`, `{{ seq 5 2 }}`, `{{ seq 0 2 9 }}`, `{{ seq 9 -3 0 }}`, `{{ seq 9 3 0 }}`, `{{ seq }}`, `{{ seq 1 2 3 4 }}`,
		`{{ splitList "," "a,b,,c" }}`, `{{ splitList "" "abc" }}`,
		`{{ split "." "a.b.c" }}`, `{{ splitn "." 2 "a.b.c" }}`, `{{ splitn "." -1 "a.b.c" }}`,
		`{{ len (randAlphaNum 7) }} {{ len (randAlpha 3) }} {{ len (randAscii 4) }} {{ len (randNumeric 5) }} {{ len (randBytes 6) }}`,
	} {
		t.Run(src, func(t *testing.T) {
			got, err := render(t, 1<<20, src, nil)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			want := sprigOnly(t, src)
			if got != want {
				t.Fatalf("got %q, Sprig makes %q", got, want)
			}
		})
	}
}

func sprigOnly(t *testing.T, src string) string {
	t.Helper()
	tpl := template.Must(template.New("t.yaml").Funcs(sprigFuncs).Parse(src))
	var b strings.Builder
	if err := tpl.Execute(&b, nil); err != nil {
		t.Fatalf("Sprig itself: %v", err)
	}
	return b.String()
}

// Every bounded function replaces a Sprig function (or a builtin) of the
// same signature shape, so that templates keep calling it the same way.
func TestFuncsReplaceSprig(t *testing.T) {
	fm := Funcs(1<<20, Seeded)
	if len(fm) != len(Bounded) {
		t.Fatalf("Funcs has %d functions, Bounded names %d", len(fm), len(Bounded))
	}
	builtins := map[string]bool{"print": true, "printf": true, "println": true}
	for _, name := range Bounded {
		fn, ok := fm[name]
		if !ok {
			t.Fatalf("%s is in Bounded but not in Funcs", name)
		}
		if builtins[name] {
			continue
		}
		orig, ok := sprigFuncs[name]
		if !ok {
			t.Fatalf("%s is not a Sprig function", name)
		}
		ot, bt := reflect.TypeOf(orig), reflect.TypeOf(fn)
		if ot.NumIn() != bt.NumIn() || ot.IsVariadic() != bt.IsVariadic() || ot.Out(0) != bt.Out(0) {
			t.Fatalf("%s: Sprig's is %s, the bounded one %s", name, ot, bt)
		}
		for i := range ot.NumIn() {
			if ot.In(i) != bt.In(i) {
				t.Fatalf("%s: Sprig's is %s, the bounded one %s", name, ot, bt)
			}
		}
	}
}

// The writer stops an execution that writes past its limit: a loop that
// only writes text is refused at the limit, not after a billion writes.
func TestWriterStopsTheTemplate(t *testing.T) {
	out, err := render(t, 1<<20, `{{ range until 100000 }}{{ range until 100000 }}0123456789{{ end }}{{ end }}`, nil)
	var e *ErrOutputTooLarge
	if !errors.As(err, &e) || len(out) > 1<<20 {
		t.Fatalf("wrote %d bytes, error %v; want ErrOutputTooLarge within 1 MiB", len(out), err)
	}
}
