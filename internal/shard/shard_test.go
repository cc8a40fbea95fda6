package shard

import (
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{in: "1/4", want: Spec{1, 4}},
		{in: " 4/4 ", want: Spec{4, 4}},
		{in: "1/1", want: Spec{1, 1}},
		{in: "0/4", wantErr: "shards count from 1"},
		{in: "5/4", wantErr: "between 1 and N"},
		{in: "1/0", wantErr: "N must be between"},
		{in: "1/2000", wantErr: "N must be between"},
		{in: "a/4", wantErr: "whole numbers"},
		{in: "4", wantErr: "want I/N"},
		{in: "", wantErr: "want I/N"},
	} {
		got, err := Parse(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) = %v, %v; want error with %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("String() = %q, want %q", got.String(), strings.TrimSpace(tc.in))
		}
	}
}

// A fixed value pins the hash: a change of function would move every
// app of every user's matrix between shards.
func TestOfPinned(t *testing.T) {
	got := []int{}
	for _, name := range []string{"web", "api", "shop", "auth", "search", "cart"} {
		got = append(got, Of(ID{"Application", "argocd", name}, 4))
	}
	if fmt.Sprint(got) != "[2 3 2 3 3 4]" {
		t.Errorf("shards of the pinned apps = %v; the hash function changed", got)
	}
}

// Adding apps moves none of the others; every app is in exactly one
// shard; the shards are near even.
func TestOfStable(t *testing.T) {
	const n = 4
	before := map[ID]int{}
	for i := range 2000 {
		id := ID{"Application", fmt.Sprintf("team-%d", i%17), fmt.Sprintf("app-%d", i)}
		before[id] = Of(id, n)
	}
	counts := make([]int, n+1)
	for id, s := range before {
		if s < 1 || s > n {
			t.Fatalf("%v in shard %d of %d", id, s, n)
		}
		held := 0
		for i := 1; i <= n; i++ {
			if (Spec{i, n}).Holds(id) {
				held++
			}
		}
		if held != 1 {
			t.Fatalf("%v held by %d shards", id, held)
		}
		counts[s]++
	}
	for i := 1; i <= n; i++ {
		if counts[i] < 400 || counts[i] > 600 {
			t.Errorf("shard %d holds %d of 2000 apps: %v", i, counts[i], counts[1:])
		}
	}
	for i := range 500 { // unrelated apps added
		Of(ID{"Application", "new", fmt.Sprintf("added-%d", i)}, n)
	}
	for id, s := range before {
		if Of(id, n) != s {
			t.Fatalf("%v moved from shard %d", id, s)
		}
	}
}

// The fields are kept apart: a/bc and ab/c are different apps.
func TestOfFieldsSeparated(t *testing.T) {
	same := 0
	for i := range 64 {
		a := ID{"Application", fmt.Sprintf("ns%d", i), "x" + fmt.Sprint(i)}
		b := ID{"Application", fmt.Sprintf("ns%dx", i), fmt.Sprint(i)}
		if Of(a, 1024) == Of(b, 1024) {
			same++
		}
	}
	if same > 3 {
		t.Errorf("%d of 64 identities that differ only in where a field ends share a shard of 1024", same)
	}
}

func TestZeroSpecHoldsAll(t *testing.T) {
	if !(Spec{}).Holds(ID{"Kustomization", "flux-system", "apps"}) || (Spec{}).Sharded() {
		t.Error("the zero Spec must hold every app and not be sharded")
	}
	if err := (Spec{3, 2}).Validate(); err == nil {
		t.Error("3/2 validated")
	}
}
