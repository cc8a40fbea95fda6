package analysis

import "testing"

func TestFailOn(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  FailOn
		fails map[Severity]bool
	}{
		{"", FailOnUnset, map[Severity]bool{0: false, SeverityInfo: false, SeverityWarning: false, SeverityError: true}},
		{"error", FailOnError, map[Severity]bool{SeverityWarning: false, SeverityError: true}},
		{"Warning", FailOnWarning, map[Severity]bool{0: false, SeverityInfo: false, SeverityWarning: true, SeverityError: true}},
		{"never", FailOnNever, map[Severity]bool{SeverityError: false}},
	} {
		got, err := ParseFailOn(tc.in)
		if err != nil || got != tc.want {
			t.Fatalf("ParseFailOn(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		for sev, want := range tc.fails {
			if got.Fails(sev) != want {
				t.Errorf("%q.Fails(%v) = %v, want %v", tc.in, sev, !want, want)
			}
		}
	}
	if _, err := ParseFailOn("fatal"); err == nil {
		t.Fatal("ParseFailOn accepted fatal")
	}
	if got := FailOnUnset.Or(FailOnUnset, FailOnNever); got != FailOnNever {
		t.Fatalf("Or skipped the set fallback: %v", got)
	}
	if got := FailOnWarning.Or(FailOnNever); got != FailOnWarning {
		t.Fatalf("Or replaced a set value: %v", got)
	}
	if got := FailOnUnset.Or(); got != FailOnError {
		t.Fatalf("default threshold %v, want error", got)
	}
}
